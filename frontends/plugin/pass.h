// Pieces of the pathprof pass shared by its files: which functions to gate
// (select.cpp), how to gate one (gate.cpp), how the module tells the runtime
// the names of its keys (names.cpp). plugin.cpp ties them to the pass manager.
#ifndef PP_PLUGIN_PASS_H
#define PP_PLUGIN_PASS_H

#include <cstdint>
#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace pathprof {

// StringRef::startswith became starts_with in LLVM 18; this spelling works
// with every LLVM the plugin builds against.
inline bool hasPrefix(llvm::StringRef s, llvm::StringRef prefix)
{
	return s.substr(0, prefix.size()) == prefix;
}

// i8* in typed-pointer IR (LLVM < 17), ptr after.
llvm::Type *bytePtr(llvm::LLVMContext &c);

enum class Mode { Annotated, All, List };

// Functions the pass must never gate: the runtime, the shims, compiler-made
// initialisers, and whatever the user marked no-instrument in a way the IR
// still shows. Applies in every mode.
bool isExcluded(const llvm::Function &F);

// The functions of M to gate under mode. For Mode::List, listPath names the
// pattern file; on a bad or unreadable file an error is reported on M's
// context and false is returned.
bool selectFunctions(llvm::Module &M, Mode mode, const std::string &listPath,
		     std::vector<llvm::Function *> &out);

// Name shown in reports: the demangled name without clone suffixes.
std::string displayName(llvm::StringRef mangled);

// Compile-time key of a function: FNV-1a 64 of its mangled name (clone
// suffix removed), never 0. Documented in docs/reference/plugin.md; anything that must
// produce the same keys (a test, another tool) follows that text.
uint64_t functionKey(llvm::StringRef mangled);

// Insert the enter call at F's entry and the leave call on every way out:
// each return, each resume, and (for functions that may unwind) a cleanup
// landing pad on every call that may throw.
void gateFunction(llvm::Function &F);

// Emit M's {key, name} table and the constructor that registers it.
void emitNameTable(llvm::Module &M, const std::vector<llvm::Function *> &gated);

} // namespace pathprof

#endif
