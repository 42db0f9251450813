# sqlite_fetch CACHE: the SQLite 3.52.0 release (sqlite3.c, sqlite3.h,
# shell.c) inside the npm package sqlite3@6.0.1, fetched once into CACHE
# and checked by sha256, with libsqlite3.so (-O2), libsqlite3-O0.so and the
# shell built there; sets rel and s (the release's directory). One line and
# a non-zero return when it cannot. Shared by tests/capture/sqlite.sh and
# bench/capture.sh.
sqlite_fetch()
{
	pkg=sqlite3@6.0.1 tgz=sqlite3-6.0.1.tgz rel=sqlite-autoconf-3520000
	sha=ab8d044a93e05bd031d7ea75547c7fa60387cdc259d27f93c0e3e2832c4b1df9
	s=$1/$rel
	[ -f "$s/ok" ] && return 0
	mkdir -p "$1" || return 1
	if [ ! -f "$1/$tgz" ]; then
		command -v npm >/dev/null 2>&1 || { echo "FAIL: npm not found (scripts/deps.sh installs it)"; return 1; }
		(cd "$1" && npm_config_cache="$1/npm" npm pack --loglevel=error "$pkg" >npm.log 2>&1) ||
			{ echo "FAIL: 'npm pack $pkg' failed: $(tail -n 3 "$1/npm.log")"; rm -f "$1/$tgz"; return 1; }
	fi
	got=$(sha256sum "$1/$tgz" | cut -d' ' -f1)
	[ "$got" = "$sha" ] || { echo "FAIL: $tgz: sha256 $got, expected $sha"; rm -f "$1/$tgz"; return 1; }
	tar -xzf "$1/$tgz" -C "$1" package/deps/$rel.tar.gz &&
		tar -xzf "$1/package/deps/$rel.tar.gz" -C "$1" || { echo "FAIL: unpacking $tgz"; return 1; }
	gcc -O2 -fPIC -shared "$s/sqlite3.c" -o "$s/libsqlite3.so" -lpthread -lm -ldl &&
		gcc -O0 -fPIC -shared "$s/sqlite3.c" -o "$s/libsqlite3-O0.so" -lpthread -lm -ldl &&
		gcc -O2 -I"$s" "$s/shell.c" -o "$s/sqlite3" -L"$s" -lsqlite3 -Wl,-rpath,"$s" -lm ||
		{ echo "FAIL: building SQLite"; return 1; }
	touch "$s/ok"
}
