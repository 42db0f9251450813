/* The name of every gated function as the demangler spells it. raii gates use
 * them as their names and --expect builds the oracle's paths from them, so a
 * front-end that names a function differently shows up as a mismatch. */
#ifndef WL_NAMES_HPP
#define WL_NAMES_HPP

#define N_HANDLE "wl::Session::handle(int, int)"
#define N_APPLY "wl::Book::apply(int)"
#define N_LEVEL "wl::Book::level(int)"
#define N_FILL "wl::Book::fill(int)"
#define N_WALK "wl::Tree<int>::walk(int)"
#define N_QUOTE_ON "wl::Quote::on(int)"
#define N_FILL_ON "wl::Fill::on(int)"
/* in the shared library */
#define N_DECODE_INT "wl::Codec<int>::decode(int)"
#define N_CHECK_INT "wl::Codec<int>::check(int)"
#define N_DECODE_LONG "wl::Codec<long>::decode(int)"
#define N_CHECK_LONG "wl::Codec<long>::check(int)"
#define N_ADD "wl::Checksum::add(long)"

#endif
