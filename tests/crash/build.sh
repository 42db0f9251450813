# Sourced by tests/crash/*.sh: compile one test program through the
# uninstalled pathprof-cc with the front-end's switch for tests/modules/gate.h.
# crash_build WRAPPER BUILDROOT VIA CC SRC OUT [FLAGS...]
crash_build() {
	_wrapper=$1 _build=$2 _via=$3 _cc=$4 _src=$5 _out=$6
	shift 6
	_def=''
	case $_via in
	raii) _def=-DUSE_RAII ;;
	plugin) _def=-DUSE_PLUGIN ;;
	esac
	# shellcheck disable=SC2086 # _def is one flag or none
	PKG_CONFIG_PATH=$_build/meson-uninstalled "$_wrapper" --via="$_via" "$_cc" -O2 $_def "$@" \
		"$_src" -o "$_out"
}
