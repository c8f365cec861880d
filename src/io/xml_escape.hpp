// XML escaping of names and values written into VTK and XDMF files.
#pragma once

#include <string>

namespace pvec::impl::io {

inline std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&apos;";
        break;
      default:
        o += c;
    }
  return o;
}

}  // namespace pvec::impl::io
