/* MuJoCo's fatal errors as a longjmp, for the compiled loops that call mj_step by address
 * (diagnose/_steploop.c, dock/_kernel.c; each includes this header, one copy per module).
 *
 * A loop installs on_log as the thread's log handler (MuJoCo's _mjPRIVATE_setTlsLogHandler),
 * points error_msg at a 1024-byte buffer, keeps the previous handler in forward and calls
 * setjmp(error_jump): an error (level 3) writes "func: subject" — as the bindings' FatalError
 * says it — and unwinds there; any other message goes where it went before.
 */
#ifndef MJSCOPE_MJLOG_H
#define MJSCOPE_MJLOG_H

#include <setjmp.h>
#include <stdio.h>

/* the head of MuJoCo's mjLogMessage (mjtype.h, 3.12 and later) */
typedef struct {
  int level; /* mjtLogLevel: 3 is mjLOG_ERROR */
  int topic;
  char subject[1024];
  const char *body;
  const char *func; /* the function that raised it, or NULL */
} log_head;
typedef void (*log_handler)(const log_head *msg);
typedef log_handler (*tls_fn)(log_handler handler); /* _mjPRIVATE_setTlsLogHandler */
typedef log_handler (*global_fn)(void);             /* _mjPRIVATE_getGlobalLogHandler */

static __thread jmp_buf error_jump;
static __thread char *error_msg;
static __thread log_handler forward; /* where warnings go on: the thread's or the global */

static void on_log(const log_head *msg) {
  if (msg->level == 3) {
    if (msg->func != NULL)
      snprintf(error_msg, 1024, "%s: %s", msg->func, msg->subject);
    else
      snprintf(error_msg, 1024, "%s", msg->subject);
    longjmp(error_jump, 1);
  }
  if (forward != NULL) forward(msg);
}

#endif
