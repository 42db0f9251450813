// The per-module table that names the plugin's keys: {key, demangled name}
// rows in a constant array, registered with the runtime by a constructor, so
// a profile of a plugin-built program needs no symbolizer; the tables sit
// in a section of their own, which the reader of a dead process's segment
// reads from the file.
#include "pass.h"

#include <pathprof/frontend.h>

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace pathprof {

static Constant *cString(Module &M, const std::string &s)
{
	Constant *init = ConstantDataArray::getString(M.getContext(), s, true);
	auto *gv = new GlobalVariable(M, init->getType(), true, GlobalValue::PrivateLinkage, init,
				      "pp.plugin.name");
	gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
	gv->setAlignment(Align(1));
	return ConstantExpr::getPointerCast(gv, bytePtr(M.getContext()));
}

void emitNameTable(Module &M, const std::vector<Function *> &gated)
{
	if (gated.empty())
		return;
	LLVMContext &c = M.getContext();
	Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c), *ptr = bytePtr(c);

	// Same layout as pp_name_entry_t: a 64-bit key then a pointer.
	StructType *rowTy = StructType::get(i64, ptr);
	std::vector<Constant *> rows;
	for (Function *F : gated)
		rows.push_back(ConstantStruct::get(rowTy, {ConstantInt::get(i64, functionKey(F->getName())),
							   cString(M, displayName(F->getName()))}));
	ArrayType *tableTy = ArrayType::get(rowTy, rows.size());
	auto *table = new GlobalVariable(M, tableTy, true, GlobalValue::PrivateLinkage,
					 ConstantArray::get(tableTy, rows), "pp.plugin.names");
	// Every module's table in one section of the linked file, rows of 16
	// bytes end to end: a killed program's keys are named from the file
	// (reader/shm_offline.c) when no naming pass published them.
	table->setSection(PP_PLUGIN_NAMES_SECTION);
	table->setAlignment(Align(16));

	// Internal and named pp_..., so a later run of this pass (or the cyg and
	// XRay front-ends) leaves it alone.
	Function *ctor = Function::Create(FunctionType::get(Type::getVoidTy(c), false),
					  GlobalValue::InternalLinkage, "pp_plugin.register", &M);
	ctor->addFnAttr(Attribute::NoUnwind);
	ctor->addFnAttr("function-instrument", "xray-never");
	IRBuilder<> b(BasicBlock::Create(c, "", ctor));
	AttributeList attrs = AttributeList().addFnAttribute(c, Attribute::NoUnwind);
	FunctionCallee reg = M.getOrInsertFunction("pp_register_names", attrs, Type::getVoidTy(c), i32,
						   ptr, i32);
	b.CreateCall(reg, {b.getInt32(PP_FE_PLUGIN), ConstantExpr::getPointerCast(table, ptr),
			   b.getInt32(rows.size())});
	b.CreateRetVoid();
	appendToGlobalCtors(M, ctor, 65535);
}

} // namespace pathprof
