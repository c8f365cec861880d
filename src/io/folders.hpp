// folders.hpp -- creating the folders an output path needs, as `mkdir -p` does.
#pragma once

#include <string>

namespace pvec::impl::io {

// Creates `dir` and every missing folder above it (mode 0777 less the umask). A folder that
// exists already, or that another rank or process creates at the same moment, is fine; a
// component that exists but is not a folder, or a folder that cannot be created, throws
// pvec::Error with PVEC_ERROR_IO naming it. An empty `dir` (the working directory) does
// nothing. Local: callers run it on every rank inside a collective agreement.
void make_folders(const std::string& dir);

}  // namespace pvec::impl::io
