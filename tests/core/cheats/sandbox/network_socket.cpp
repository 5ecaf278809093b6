// Class 4, variant: a network socket (to fetch results from elsewhere).
#include <netinet/in.h>
#include <sys/socket.h>

KGB_CHEAT_ENTRY {
  static int tried = 0;
  if (!tried) {
    tried = 1;
    socket(AF_INET, SOCK_STREAM, 0);
  }
  return scale_impl(x, alpha, out);
}
