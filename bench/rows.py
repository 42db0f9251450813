"""The rows the bench scripts collect, one a line: a name, then one or more
numbers (one run's figures). read(path) gives name -> list of runs, each a
float or, with several numbers, a tuple of them, in the file's order."""


def read(path):
    rows = {}
    for line in open(path):
        k, *v = line.split()
        rows.setdefault(k, []).append(float(v[0]) if len(v) == 1 else tuple(map(float, v)))
    return rows
