/* The part of LLVM XRay's run-time interface the shim uses, declared for C.
 * compiler-rt ships xray/xray_interface.h as C++ only; these are the same
 * extern "C" symbols of libclang_rt.xray, with C-compatible types (the
 * enumerations travel as int in the C calling convention). */
#ifndef PP_XRAY_ABI_H
#define PP_XRAY_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Kinds of sled events passed to the handler (LLVM's SledKind). */
enum pp_xray_entry_type {
	PP_XRAY_ENTRY = 0,
	PP_XRAY_EXIT = 1,
	PP_XRAY_TAIL = 2, /* the function leaves by a jump to another function */
	PP_XRAY_LOG_ARGS_ENTRY = 3,
	PP_XRAY_CUSTOM_EVENT = 4,
	PP_XRAY_TYPED_EVENT = 5,
};

/* Results of the patching calls (XRayPatchingStatus). */
enum pp_xray_patch_status {
	PP_XRAY_NOT_INITIALIZED = 0,
	PP_XRAY_SUCCESS = 1,
	PP_XRAY_ONGOING = 2,
	PP_XRAY_FAILED = 3,
};

typedef void (*pp_xray_handler_t)(int32_t func_id, int type);

/* Install / remove the handler the patched sleds call; 1 on success. The
 * handler may still be called briefly after removal. */
extern int __xray_set_handler(pp_xray_handler_t handler);
extern int __xray_remove_handler(void);

/* Patch (arm) or unpatch every sled, or the sleds of one function id. */
extern int __xray_patch(void);
extern int __xray_unpatch(void);
extern int __xray_patch_function(int32_t func_id);
extern int __xray_unpatch_function(int32_t func_id);

/* Entry address of function id (1-based), 0 when the id is invalid. */
extern uintptr_t __xray_function_address(int32_t func_id);

/* Largest valid function id; 0 when the program has no sleds. */
extern size_t __xray_max_function_id(void);

#endif
