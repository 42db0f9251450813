// Which functions of a module get gates: those carrying the "pathprof"
// annotation, every defined function, or those matching a list file; minus
// the runtime and anything the IR says must not be instrumented.
#include "pass.h"
#include "glob.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace pathprof {

static StringRef stripSuffix(StringRef name)
{
	// ".cold", ".llvm.<n>", ".__uniq.<n>": a C or C++ identifier never
	// holds a dot, so anything from the first one is the compiler's.
	return name.substr(0, name.find('.'));
}

// The C++ runtime's demangler first: the cyg and xray front-ends name
// functions with __cxa_demangle at dump time, and LLVM's demangler spells some
// names differently (lambdas), which would make the same path look different.
std::string displayName(StringRef mangled)
{
	StringRef base = stripSuffix(mangled);
	if (!hasPrefix(base, "_Z"))
		return base.str();
	std::string s = base.str();
	int status = 0;
	char *out = abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status);
	if (!out)
		return demangle(s);
	std::string r(out);
	std::free(out);
	return r;
}

uint64_t functionKey(StringRef mangled)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned char c : stripSuffix(mangled)) {
		h ^= c;
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

bool isExcluded(const Function &F)
{
	StringRef n = F.getName();
	// The runtime, the shims and XRay/cyg hooks: gating them would recurse.
	if (hasPrefix(n, "pp_") || hasPrefix(n, "__cyg_") || hasPrefix(n, "__xray"))
		return true;
	// Initialisers clang synthesises have no source function; the cyg
	// front-end never sees them either.
	if (hasPrefix(n, "__cxx_global_") || hasPrefix(n, "_GLOBAL__") || hasPrefix(n, "__clang_") ||
	    hasPrefix(n, "__dtor_"))
		return true;
	// PP_NOINSTR and xray_never_instrument reach the IR as this attribute;
	// a bare no_instrument_function leaves no trace there (docs/reference/plugin.md).
	if (F.getFnAttribute("function-instrument").getValueAsString() == "xray-never")
		return true;
	// No body to put a call into.
	if (F.hasFnAttribute(Attribute::Naked))
		return true;
	// A coroutine is split into several functions after this pass runs, so
	// one entry and its exits no longer pair up.
#if LLVM_VERSION_MAJOR >= 15
	if (F.isPresplitCoroutine())
		return true;
#else
	if (F.hasFnAttribute("coroutine.presplit"))
		return true;
#endif
	return false;
}

// llvm.global.annotations is an array of {function, string, file, line,
// args}; the function and the string sit behind pointer casts in typed-pointer
// IR (LLVM 14) and directly in opaque-pointer IR.
static void annotated(Module &M, SmallPtrSetImpl<Function *> &out)
{
	GlobalVariable *ga = M.getNamedGlobal("llvm.global.annotations");
	if (!ga || !ga->hasInitializer())
		return;
	auto *arr = dyn_cast<ConstantArray>(ga->getInitializer());
	if (!arr)
		return;
	for (Value *op : arr->operands()) {
		auto *entry = dyn_cast<ConstantStruct>(op);
		if (!entry || entry->getNumOperands() < 2)
			continue;
		auto *fn = dyn_cast<Function>(entry->getOperand(0)->stripPointerCasts());
		auto *str = dyn_cast<GlobalVariable>(entry->getOperand(1)->stripPointerCasts());
		if (!fn || !str || !str->hasInitializer())
			continue;
		auto *text = dyn_cast<ConstantDataSequential>(str->getInitializer());
		if (text && text->isCString() && text->getAsCString() == "pathprof")
			out.insert(fn);
	}
}

// "ns::Widget::poke" for "_ZN2ns6Widget4pokeEi": lets a list file name a
// C++ function without spelling its parameters.
static std::string qualifiedName(StringRef mangled)
{
	StringRef base = stripSuffix(mangled);
	if (!hasPrefix(base, "_Z"))
		return base.str();
	ItaniumPartialDemangler d;
	std::string s = base.str();
	if (d.partialDemangle(s.c_str()) || !d.isFunction())
		return demangle(s);
	size_t n = 0;
	char *buf = d.getFunctionName(nullptr, &n);
	if (!buf)
		return demangle(s);
	std::string r(buf);
	std::free(buf);
	return r;
}

// The list file's globs, one per line, joined by newlines: matched by the
// runtime's own glob code (format/glob.c), so a pattern selects the same
// functions here as in PATHPROF_ROOT, PATHPROF_FUNCTIONS or PATHPROF_XRAY.
struct Patterns {
	std::string list;

	bool matches(const Function &F) const
	{
		std::string names[3] = {F.getName().str(), displayName(F.getName()),
					qualifiedName(F.getName())};
		const char *ptrs[3] = {names[0].c_str(), names[1].c_str(), names[2].c_str()};
		return pp__select_match(list.c_str(), '\n', ptrs, 3);
	}
};

// One glob per line; '#' starts a comment; a leading '!' excludes.
static bool readPatterns(LLVMContext &ctx, const std::string &path, Patterns &out)
{
	if (path.empty()) {
		ctx.emitError("pathprof: mode 'list' needs -pathprof-list=<file>");
		return false;
	}
	ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path);
	if (!buf) {
		ctx.emitError("pathprof: " + path + ": " + buf.getError().message());
		return false;
	}
	SmallVector<StringRef, 32> lines;
	(*buf)->getBuffer().split(lines, '\n');
	for (size_t i = 0; i < lines.size(); i++) {
		StringRef line = lines[i].substr(0, lines[i].find('#')).trim();
		if (line.empty())
			continue;
		std::string pat = line.str();
		char err[256];
		if (pp__select_check(pat.c_str(), '\n', err, sizeof err) != 0) {
			ctx.emitError("pathprof: " + path + ":" + Twine(i + 1) + ": bad pattern: " + err);
			return false;
		}
		if (!out.list.empty())
			out.list += '\n';
		out.list += pat;
	}
	return true;
}

bool selectFunctions(Module &M, Mode mode, const std::string &listPath,
		     std::vector<Function *> &out)
{
	SmallPtrSet<Function *, 32> marked;
	Patterns pats;
	if (mode == Mode::Annotated)
		annotated(M, marked);
	if (mode == Mode::List && !readPatterns(M.getContext(), listPath, pats))
		return false;
	for (Function &F : M) {
		if (F.isDeclaration() || isExcluded(F))
			continue;
		bool take = false;
		switch (mode) {
		case Mode::Annotated:
			take = marked.count(&F);
			break;
		case Mode::All:
			// Reserved C names belong to libc and compiler headers
			// (glibc's inline byte swaps...), not to the program.
			take = !hasPrefix(F.getName(), "__");
			break;
		case Mode::List:
			take = pats.matches(F);
			break;
		}
		if (take)
			out.push_back(&F);
	}
	return true;
}

} // namespace pathprof
