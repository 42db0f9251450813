// Puts the gate into one function: pp_plugin_enter(key) at entry and
// pp_plugin_leave(key) on every way out, so the runtime's shadow stack stays
// balanced whether the function returns from any of its returns or an
// exception passes through it.
#include "pass.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Local.h"
#if __has_include("llvm/IR/EHPersonalities.h")
#include "llvm/IR/EHPersonalities.h"
#else
#include "llvm/Analysis/EHPersonalities.h"
#endif

using namespace llvm;

namespace pathprof {

Type *bytePtr(LLVMContext &c)
{
#if LLVM_VERSION_MAJOR >= 17
	return PointerType::getUnqual(c);
#else
	return Type::getInt8PtrTy(c);
#endif
}

// The shim's two functions never throw; saying so keeps the calls from
// needing landing pads of their own and lets the optimiser move code past them.
static FunctionCallee shimFunction(Module &M, const char *name, Type *arg)
{
	LLVMContext &c = M.getContext();
	AttributeList attrs = AttributeList().addFnAttribute(c, Attribute::NoUnwind);
	FunctionType *ty = arg ? FunctionType::get(Type::getVoidTy(c), {arg}, false)
			       : FunctionType::get(Type::getVoidTy(c), false);
	return M.getOrInsertFunction(name, ty, attrs);
}

// A call without a location inside a function with debug info upsets the
// verifier once the callee is inlinable (LTO); line 0 says "compiler-made".
static void place(CallInst *ci, const Function &F, DebugLoc near)
{
	ci->setDoesNotThrow();
	if (DISubprogram *sp = F.getSubprogram())
		ci->setDebugLoc(near ? near : DebugLoc(DILocation::get(F.getContext(), 0, 0, sp)));
}

// Personality for a function that had none: the module's own when it has
// one (the inliner refuses to merge functions whose personalities differ),
// else the C++ one in a C++ module and the C cleanup-only one otherwise.
static Constant *pickPersonality(Module &M)
{
	bool cxx = false;
	for (Function &G : M) {
		if (G.hasPersonalityFn())
			return G.getPersonalityFn();
		cxx |= hasPrefix(G.getName(), "_Z");
	}
	LLVMContext &c = M.getContext();
	FunctionCallee p = M.getOrInsertFunction(cxx ? "__gxx_personality_v0" : "__gcc_personality_v0",
						 FunctionType::get(Type::getInt32Ty(c), true));
	return ConstantExpr::getPointerCast(cast<Constant>(p.getCallee()), bytePtr(c));
}

static bool invokable(const CallInst *ci)
{
	if (ci->doesNotThrow() || ci->isInlineAsm() || ci->isMustTailCall())
		return false;
	const Function *callee = ci->getCalledFunction();
	return !(callee && callee->isIntrinsic());
}

// The landing pad every converted call unwinds to: leave, then keep unwinding.
static BasicBlock *cleanupPad(Function &F, FunctionCallee leave, Value *key, Type *lpTy)
{
	LLVMContext &c = F.getContext();
	BasicBlock *bb = BasicBlock::Create(c, "pp.unwind", &F);
	IRBuilder<> b(bb);
	LandingPadInst *lp = b.CreateLandingPad(lpTy, 0);
	lp->setCleanup(true);
	place(b.CreateCall(leave, {key}), F, DebugLoc());
	b.CreateResume(lp);
	return bb;
}

void gateFunction(Function &F)
{
	Module &M = *F.getParent();
	LLVMContext &c = M.getContext();
	FunctionCallee enter = shimFunction(M, "pp_plugin_enter", Type::getInt64Ty(c));
	// The leave names the key it leaves: the runtime checks it against
	// the top frame (docs/internals/control-flow.md).
	FunctionCallee leave = shimFunction(M, "pp_plugin_leave", Type::getInt64Ty(c));

	std::vector<Instruction *> exits;
	std::vector<CallInst *> throwing;
	Type *lpTy = nullptr;
	bool unwinds = !F.doesNotThrow();
	if (unwinds && F.hasPersonalityFn() &&
	    isScopedEHPersonality(classifyEHPersonality(F.getPersonalityFn())))
		unwinds = false; // funclet EH (Windows) is not handled
	for (BasicBlock &bb : F) {
		for (Instruction &i : bb) {
			if (auto *lp = dyn_cast<LandingPadInst>(&i))
				lpTy = lp->getType();
			else if (isa<ReturnInst>(i) || isa<ResumeInst>(i))
				exits.push_back(&i);
			else if (auto *ci = dyn_cast<CallInst>(&i))
				if (unwinds && invokable(ci))
					throwing.push_back(ci);
		}
	}

	BasicBlock &entry = F.getEntryBlock();
	BasicBlock::iterator at = entry.getFirstInsertionPt();
	while (isa<AllocaInst>(*at))
		++at;
	IRBuilder<> b(&entry, at);
	DebugLoc entryLoc;
	if (DISubprogram *sp = F.getSubprogram())
		entryLoc = DILocation::get(c, sp->getScopeLine(), 0, sp);
	Value *key = b.getInt64(functionKey(F.getName()));
	place(b.CreateCall(enter, {key}), F, entryLoc);

	for (Instruction *x : exits) {
		Instruction *before = x;
		// A musttail call must stay right before its return: leave first.
		if (CallInst *mt = x->getParent()->getTerminatingMustTailCall())
			before = mt;
		b.SetInsertPoint(before);
		place(b.CreateCall(leave, {key}), F, x->getDebugLoc());
	}

	if (throwing.empty())
		return;
	if (!F.hasPersonalityFn())
		F.setPersonalityFn(pickPersonality(M));
	if (!lpTy)
		lpTy = StructType::get(bytePtr(c), Type::getInt32Ty(c));
	BasicBlock *pad = cleanupPad(F, leave, key, lpTy);
	for (CallInst *ci : throwing)
		changeToInvokeAndSplitBasicBlock(ci, pad);
}

} // namespace pathprof
