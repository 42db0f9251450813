/* Shared by the symbolize tests and their helper libraries. */
#ifndef PP_SYMTEST_SYMLIB_H
#define PP_SYMTEST_SYMLIB_H

int pp_symtest_lib_fn(int x);
int pp_symtest_gone_fn(int x);

#endif
