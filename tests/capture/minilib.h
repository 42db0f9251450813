/* A small library for tests/capture/paths.sh: an opaque handle and work
 * whose inner calls are known exactly. */
typedef struct mini mini;
mini *mini_new(int n);
long mini_work(mini *m, int rounds);
void mini_free(mini *m);
