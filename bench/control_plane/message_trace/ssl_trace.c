// LD_PRELOAD shim for trace_messages.py: appends the plaintext of every
// SSL_read and SSL_write of the process to $SSL_TRACE_DIR/ssl.PID, one line
// each: R|W, CLOCK_MONOTONIC time, thread id, local port, peer port, bytes,
// the bytes in hex. For counting CAF BASP frames; never for production.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/socket.h>
#include <netinet/in.h>
typedef struct ssl_st SSL;
static int (*real_read)(SSL*, void*, int);
static int (*real_write)(SSL*, const void*, int);
extern int SSL_get_fd(const SSL*);
static FILE* out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void record(char dir, SSL* s, const void* buf, int n) {
  if (n <= 0) return;
  pthread_mutex_lock(&lock);
  if (!out) {
    const char* d = getenv("SSL_TRACE_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/ssl.%d", d ? d : "/tmp", getpid());
    out = fopen(path, "a");
  }
  if (out) {
    int fd = SSL_get_fd(s);
    struct sockaddr_in a = {0}, b = {0};
    socklen_t la = sizeof a, lb = sizeof b;
    getsockname(fd, (struct sockaddr*)&a, &la);
    getpeername(fd, (struct sockaddr*)&b, &lb);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(out, "%c %ld.%09ld %d %u %u %d ", dir, ts.tv_sec, ts.tv_nsec, (int)gettid(), ntohs(a.sin_port), ntohs(b.sin_port), n);
    const unsigned char* p = buf;
    for (int i = 0; i < n; ++i) fprintf(out, "%02x", p[i]);
    fputc('\n', out);
    fflush(out);
  }
  pthread_mutex_unlock(&lock);
}
int SSL_read(SSL* s, void* buf, int num) {
  if (!real_read) real_read = dlsym(RTLD_NEXT, "SSL_read");
  int n = real_read(s, buf, num);
  record('R', s, buf, n);
  return n;
}
int SSL_write(SSL* s, const void* buf, int num) {
  if (!real_write) real_write = dlsym(RTLD_NEXT, "SSL_write");
  int n = real_write(s, buf, num);
  record('W', s, buf, n);
  return n;
}
