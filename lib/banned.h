/*
 * banned.h - library calls astra-cc must not use, turned into compile
 * errors (as git's banned.h).  Included at the end of lib/util.h, which
 * every file of the product includes after its system headers.
 *
 * Why each is banned:
 *   strcpy strcat strncpy strncat sprintf vsprintf gets
 *       no bound, or a bound that silently truncates: use struct astra_buf
 *       (astra_buf_addf), xstrdup, xstrndup, snprintf into a fixed array
 *       only where truncation is harmless
 *   system popen
 *       a shell: kernel text and LLM answers are hostile input; start
 *       programs from argv arrays (lib/run.h)
 *   strtok gmtime localtime ctime asctime
 *       hidden static state: use strtok_r, gmtime_r, localtime_r
 *   tmpnam tempnam mktemp
 *       a name another process can take first: use mkstemp, mkdtemp
 */
#ifndef ASTRA_BANNED_H
#define ASTRA_BANNED_H

/*
 * The headers that declare them first: with _FORTIFY_SOURCE their inline
 * wrappers (bits/stdio2.h) must be defined before the names become
 * macros, and a later #include of them is then a no-op.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function_see_lib_banned_h

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef system
#define system(x) BANNED(system)
#undef popen
#define popen(x, y) BANNED(popen)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef ctime
#define ctime(t) BANNED(ctime)
#undef asctime
#define asctime(t) BANNED(asctime)
#undef tmpnam
#define tmpnam(x) BANNED(tmpnam)
#undef tempnam
#define tempnam(x, y) BANNED(tempnam)
#undef mktemp
#define mktemp(x) BANNED(mktemp)

#endif
