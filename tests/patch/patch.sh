#!/bin/sh
# A budget patches a stopped cyg function's hook calls out of its code:
# tests/patch/patchprobe.c through cyg with CC, PATHPROF_BUDGET=5%. The
# program checks that two threads running the helper while its bytes
# changed got every result right, and that a call of tick open during the
# stop kept its exit; then it prints the bytes of helper, mix, tick, batch
# and main. objdump (binutils, an oracle apart from ours) lists each hook
# call and tail jump in the files; in memory, each of helper's, mix's and
# tick's must have its first byte changed exactly as site_patch.c says
# (call -> cmp, call through the GOT -> lea, tail jump -> ret), every other
# byte of the five functions must be the file's, and the profile must list
# the three throttled and their 6 sites patched (JSON and the text
# report's header), with no unmatched exit.
# FLAGS (one word, may be empty) is added to the build: -fno-plt makes GCC
# call the hooks through the GOT (the linker relaxes that to an addr32
# call, 67 e8, for a hook the program defines; in a shared library it
# stays a call through the GOT, ff 15); with "shared", the stopped
# functions and batch live in a shared library of their own, built through
# cyg too, whose hook calls go through its PLT.
# usage: patch.sh CC FLAGS SRCROOT PATHPROF WRAPPER WORKDIR
set -u
cc=$1 flags=$2 src=$3 pp=$(cd "$(dirname "$4")" && pwd)/$(basename "$4") wrapper=$5 work=$6/patch-$1.$$
mkdir -p "$work" || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
what="$cc $flags"
fail() { echo "FAIL: $what: $*"; exit 1; }
cd "$work" || exit 1
lib=probe
case $flags in
shared)
	flags=
	lib=libprobe.so
	"$wrapper" --via=cyg "$cc" -O2 -fPIC -shared -DPROBE_LIB "$src/tests/patch/patchprobe.c" \
		-o libprobe.so >build.log 2>&1 &&
		"$wrapper" --via=cyg "$cc" -O2 -pthread -DPROBE_MAIN "$src/tests/patch/patchprobe.c" \
			-L. -lprobe -Wl,-rpath,"$work" -o probe >>build.log 2>&1 || fail "build: $(cat build.log)"
	mode="$cc shared" ;;
*)
	"$wrapper" --via=cyg "$cc" -O2 $flags -pthread "$src/tests/patch/patchprobe.c" -o probe \
		>build.log 2>&1 || fail "build: $(cat build.log)"
	mode="$cc $flags" ;;
esac
size() { # a function's size from the symbol table of the file that holds it
	f=probe
	[ "$1" = main ] || f=$lib
	echo $((0x$(nm -S "$f" | awk -v f="$1" '$4 == f && ($3 == "T" || $3 == "t") { print $2 }')))
}
PATHPROF_BUDGET=5% PATHPROF_TIMING=on PATHPROF_OUT=p.pathprof ./probe "$(size helper)" "$(size mix)" "$(size batch)" \
	"$(size main)" "$(size tick)" >mem.txt 2>err.txt || fail "run: $(cat mem.txt err.txt)"
objdump -d probe >all.dis || fail "objdump"
[ "$lib" = probe ] || objdump -d "$lib" >>all.dis || fail "objdump $lib"
"$pp" report --format json p.pathprof >p.json || fail "report"
"$pp" report p.pathprof >p.txt || fail "report text"
grep -q "^             hook calls patched out of the code at 6 sites (0 left)$" p.txt ||
	fail "text report: $(grep -A1 '^  budget' p.txt)"
python3 - mem.txt all.dis p.json "$mode" <<'PY' || fail "see above"
import json, re, sys
mem = {l.split()[0]: [int(b, 16) for b in l.split()[1:]] for l in open(sys.argv[1])}
# objdump: each function's instructions, offsets from its start, bytes, text
funcs, cur = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
    if m:
        cur = m.group(2) if m.group(2) in mem else None
        base = int(m.group(1), 16)
        if cur:
            funcs[cur] = []
        continue
    m = re.match(r"^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(.*)$", line)
    if cur and m:
        funcs[cur].append((int(m.group(1), 16) - base, [int(b, 16) for b in m.group(2).split()],
                           m.group(3)))
    elif cur and re.match(r"^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*$", line):
        # a continuation line of a long instruction's bytes
        m = re.match(r"^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*$", line)
        funcs[cur][-1] = (funcs[cur][-1][0], funcs[cur][-1][1] + [int(b, 16) for b in m.group(2).split()],
                          funcs[cur][-1][2])
bad = []
sites = {}
tails = []
for f, insns in funcs.items():
    filebytes = []
    for off, bs, text in insns:
        filebytes += bs
    want = list(filebytes)
    n = 0
    for off, bs, text in insns:
        hook = "__cyg_profile_func_enter" in text or "__cyg_profile_func_exit" in text
        if not hook:
            continue
        n += 1
        if f not in ("helper", "mix", "tick"):
            continue
        if text.startswith("call") and bs[0] == 0xe8:
            want[off] = 0x3d
        elif text.startswith("addr32 call") and bs[:2] == [0x67, 0xe8]:
            want[off + 1] = 0x3d
        elif text.startswith("call") and bs[:2] == [0xff, 0x15]:
            want[off] = 0x8d
        elif text.startswith("jmp") and (bs[0] == 0xe9 or bs[:2] == [0xff, 0x25]):
            want[off] = 0xc3
            tails.append(f)
        else:
            bad.append("%s+%d: a hook instruction of a form not expected: %s" % (f, off, text))
    sites[f] = n
    # objdump runs on to the next symbol (alignment padding): nm's size
    want = want[:len(mem[f])]
    got = mem[f]
    if len(got) < 16 or len(want) != len(got):
        bad.append("%s: %d bytes in memory, %d in the file" % (f, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            bad.append("%s+%d: %02x in memory, expected %02x (file %02x)" % (f, i, g, w, filebytes[i]))
tails = "tail jumps in " + (", ".join(tails) or "none")
for f in ("helper", "mix", "tick"):
    if sites.get(f, 0) < 2:
        bad.append("%s has %d hook instructions in the file" % (f, sites.get(f, 0)))
if sites.get("batch", 0) < 2 or sites.get("main", 0) < 2:
    bad.append("hook instructions: %r" % sites)
d = json.load(open(sys.argv[3]))
names = [t["function"] for t in d["throttled"]]
if sorted(names) != ["helper", "mix", "tick"]:
    bad.append("throttled %r, expected helper, mix and tick" % names)
want_sites = sites.get("helper", 0) + sites.get("mix", 0) + sites.get("tick", 0)
if d["unmatched"] != 0:
    bad.append("unmatched %d: an open call of tick lost its exit" % d["unmatched"])
longest = max([n["incl"]["max_ns"] for n in d["nodes"] if n["path"] == ["long_tick", "tick"]] or [0])
if longest < 30e6:
    bad.append("the open call of tick: %r ns, expected the 30 ms pause or more" % longest)
if (d.get("patched_sites"), d.get("refused_sites")) != (want_sites, 0):
    bad.append("the profile says %r sites patched, %r left; expected %d and 0"
               % (d.get("patched_sites"), d.get("refused_sites"), want_sites))
for b in bad:
    print("  " + b)
if bad:
    sys.exit(1)
print("ok: %s: hook instructions patched: helper's %d, mix's %d, tick's %d (%s); untouched: batch's %d, "
      "main's %d; the open call of tick %.1f ms" % (sys.argv[4], sites["helper"], sites["mix"], sites["tick"],
      tails, sites["batch"], sites["main"], longest / 1e6))
PY
