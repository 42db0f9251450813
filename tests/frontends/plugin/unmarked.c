/* tests/plugin: a file that defines functions and marks none. In the
 * default annotated mode the pass gates nothing here and must say so. */
int parse(int x);

int parse(int x)
{
	return x * 3;
}

int main(void)
{
	return parse(0);
}
