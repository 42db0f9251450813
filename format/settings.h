/* The parsers of settings that both the runtime (PATHPROF_* variables) and
 * the pathprof tool (its options, which it passes on as those variables)
 * take, so that a value one accepts the other accepts too (#28: `run
 * --timing sample:4294967296` was accepted by the tool and refused by the
 * child). */
#ifndef PP_SETTINGS_H
#define PP_SETTINGS_H

#include <stdint.h>

/* Plain decimal digits within [lo, hi]: no sign, no space, no wrap. 0, or
 * -1 when s is not one. */
int pp__parse_digits(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* "on", "off" or "sample:N" (1 <= N < 2^31; sample:1 is on) into a timing
 * mode (enum pp_timing) and its N. 0, or -1 when s is not one. */
int pp__parse_timing(const char *s, uint32_t *mode, uint32_t *sample_n);

/* A percentage: a decimal number from 0 to 100, '%' after it allowed
 * ("5", "2.5%"). 0, or -1 when s is not one. */
int pp__parse_percent(const char *s, double *out);

#endif
