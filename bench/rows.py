"""The rows the bench scripts collect, one a line: a name, then one or more
numbers (one run's figures). read(path) gives name -> list of runs, each a
float or, with several numbers, a tuple of them, in the file's order;
quartiles(x) gives the first and third quartiles of x as "Q1-Q3"."""
import statistics


def read(path):
    rows = {}
    for line in open(path):
        k, *v = line.split()
        rows.setdefault(k, []).append(float(v[0]) if len(v) == 1 else tuple(map(float, v)))
    return rows


def quartiles(x):
    """"Q1-Q3" of the values x, to two decimals; "-" for fewer than two."""
    if len(x) < 2:
        return "-"
    q = statistics.quantiles(x, n=4)
    return "%.2f-%.2f" % (q[0], q[2])
