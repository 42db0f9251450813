# Sourced by the bench scripts that build real programs from npm packages
# (realparse.sh, cxxselect.sh): their directories and the packages' fetch.
# shellcheck shell=sh disable=SC2034
# npm_bench_start NAME BUILD_DIR: build (absolute), root (the repository),
# cache (BUILD_DIR/NAME-cache, kept between runs: the packages), tmp
# (removed at exit); me (NAME.sh) for messages. Needs npm.
npm_bench_start() {
	me=$1.sh
	build=$(cd "$2" && pwd)
	root=$(cd "$(dirname "$0")/.." && pwd)
	cache=$build/$1-cache
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	command -v npm >/dev/null || { echo "$me: npm not found (scripts/deps.sh installs it)" >&2; exit 1; }
}

# fetch NAME VERSION SHA256: the package unpacked in $cache/NAME-VERSION,
# once; a tarball whose checksum is not the one given is refused
fetch() {
	dir=$cache/$1-$2
	[ -f "$dir/ok" ] && return 0
	mkdir -p "$dir"
	tgz=$1-$2.tgz
	if [ ! -f "$cache/$tgz" ]; then
		(cd "$cache" && npm_config_cache="$cache/npm" npm pack --loglevel=error "$1@$2" >npm.log 2>&1) ||
			{ echo "$me: 'npm pack $1@$2' failed" >&2; tail -n 5 "$cache/npm.log" >&2; exit 1; }
	fi
	got=$(sha256sum "$cache/$tgz" | cut -d' ' -f1)
	[ "$got" = "$3" ] || { echo "$me: $tgz: sha256 $got, expected $3" >&2; rm -f "$cache/$tgz"; exit 1; }
	tar -xzf "$cache/$tgz" -C "$dir" --strip-components=1
	touch "$dir/ok"
}
