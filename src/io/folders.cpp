#include "io/folders.hpp"

#include "io/staging.hpp"

#include <cerrno>
#include <sys/stat.h>

namespace pvec::impl::io {

namespace {
bool is_folder(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
}  // namespace

void make_folders(const std::string& dir) {
  if (dir.empty() || is_folder(dir)) return;
  // Each prefix ending before a '/', then the whole path: /a, /a/b, /a/b/c.
  for (size_t at = dir.find('/', 1);; at = dir.find('/', at + 1)) {
    const std::string part = dir.substr(0, at);
    if (!part.empty() && part.back() != '/' && !is_folder(part)) {
      // EEXIST: created by a rank racing this one (or a non-folder: the stat below says so).
      if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
        fail_io("cannot create folder", part);
      if (!is_folder(part)) {
        errno = ENOTDIR;
        fail_io("cannot create folder", part);
      }
    }
    if (at == std::string::npos) break;
  }
}

}  // namespace pvec::impl::io
