// The pathprof LLVM pass plugin: `clang -fpass-plugin=pathprof-plugin.so`
// gates the selected functions with calls into the plugin shim (shim.c).
// It runs at the start of the pipeline, before the inliner (docs/reference/plugin.md).
#include "pass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using pathprof::Mode;

static cl::opt<Mode> modeOpt("pathprof-mode", cl::desc("Functions the pathprof pass gates"),
			     cl::init(Mode::Annotated),
			     cl::values(clEnumValN(Mode::Annotated, "annotated",
						   "those marked PATHPROF (annotate(\"pathprof\"))"),
					clEnumValN(Mode::All, "all", "every defined function"),
					clEnumValN(Mode::List, "list",
						   "those matching the globs of -pathprof-list")));

static cl::opt<std::string> listOpt("pathprof-list",
				    cl::desc("Pattern file for -pathprof-mode=list: one glob per line, "
					     "'#' comments, '!glob' excludes"),
				    cl::value_desc("file"));

static cl::opt<bool> warnUnmarkedOpt(
	"pathprof-warn-unmarked", cl::init(true),
	cl::desc("Warn when -pathprof-mode=annotated finds no marked function in a file "
		 "that defines some (=false silences it for files left unmarked on purpose)"));

namespace {

// A file built in the default mode that marks nothing gates nothing, and
// the only other sign of it is an empty profile at run time: say so here.
static void warnIfUnmarked(Module &M)
{
	for (Function &F : M)
		if (!F.isDeclaration() && !pathprof::isExcluded(F)) {
			WithColor::warning(errs(), "pathprof")
				<< M.getSourceFileName()
				<< ": no function is marked PATHPROF, so nothing in this file is "
				   "gated (mark functions, or choose them: pathprof-cc "
				   "--plugin-mode=all or --plugin-list=FILE; clang itself needs "
				   "-fplugin=PLUGIN before -mllvm -pathprof-mode=all|list, and "
				   "-mllvm -pathprof-warn-unmarked=false silences this)\n";
			return;
		}
}

struct PathprofPass : PassInfoMixin<PathprofPass> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		std::vector<Function *> gated;
		if (!pathprof::selectFunctions(M, modeOpt, listOpt, gated))
			return PreservedAnalyses::all();
		if (gated.empty()) {
			if (modeOpt == Mode::Annotated && warnUnmarkedOpt)
				warnIfUnmarked(M);
			return PreservedAnalyses::all();
		}
		for (Function *F : gated)
			pathprof::gateFunction(*F);
		pathprof::emitNameTable(M, gated);
		return PreservedAnalyses::none();
	}

	// Gates are semantics, not an optimisation: run under optnone and -O0.
	static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return {LLVM_PLUGIN_API_VERSION, "pathprof", PP_PLUGIN_VERSION, [](PassBuilder &pb) {
			pb.registerPipelineStartEPCallback(
				[](ModulePassManager &mpm, OptimizationLevel) { mpm.addPass(PathprofPass()); });
			// `opt -load-pass-plugin=... -passes=pathprof` for tests and debugging.
			pb.registerPipelineParsingCallback(
				[](StringRef name, ModulePassManager &mpm,
				   ArrayRef<PassBuilder::PipelineElement>) {
					if (name != "pathprof")
						return false;
					mpm.addPass(PathprofPass());
					return true;
				});
		}};
}
