/* Burst timing's windows (gate_window.c) and their pacer (burst.c). */
#ifndef PP_GATE_WINDOW_H
#define PP_GATE_WINDOW_H

#include <stdint.h>
#include <pathprof/state.h>

/* In a frame's children total: the frame was open when its window opened,
 * so its exit is a cut call (gate_window.c). The timed exit's test that
 * the children took less than the gate then fails, and the exit goes out
 * of line at no cost to the others. Bit 62, not 63: that test compares as
 * signed numbers, so that a clock stepping back (a negative inclusive
 * time) fails it too, and no tick count reaches 2^62 (48 years at 3 GHz). */
#define PP__KIDS_CUT (1ull << 62)

/* Set while a window opens, closes or takes a cut exit: a signal
 * handler's gate that lands meanwhile leaves the window alone (it counts,
 * untimed, where it would have taken part), so no frame is taken twice. */
extern __thread int pp__window_busy PP_TLS_IE;

/* Open a window at the pacer's request (t->wreq set): from the gate that
 * found the request, every gate of the thread is timed until t->wend. */
void pp__window_open(pp__tls_t *t);
/* Close the open window at its end: the open frames' time up to it goes to
 * their nodes as cut calls. */
void pp__window_close(pp__tls_t *t);
/* The exit at state v, at now, of a frame the window found open: its time,
 * then the pop. */
void pp__window_cut_exit(pp__tls_t *t, uint32_t v, uint64_t now);

/* Start the pacer once (the host, at a thread's first gate, when burst
 * timing is on); stop it (the exit dump). */
void pp__burst_start(void);
void pp__burst_stop(void);

#endif
