#include "exchange/dist_context.hpp"

#include "backend/device.hpp"

#include <algorithm>

namespace pvec::impl {

using U = Workspace::Use;

Route DistContext::prepare_exchange(bool device, int64_t send_total, int64_t recv_total) {
  return transport.prepare(device && ps.cuda(), send_total, recv_total, stats);
}

char* DistContext::send_buffer(bool device, Route route, int64_t send_total) {
  if (route == Route::shared_memory) return transport.shared_segment();
  return static_cast<char*>(
      ws.side(device && ps.cuda())[U::send].ensure(std::max<int64_t>(send_total, 8)));
}

const char* DistContext::exchange(bool device, Route route, const void* send,
                                  const std::vector<int64_t>& send_bytes,
                                  const std::vector<int64_t>& send_displs, void* recv,
                                  const std::vector<int64_t>& recv_bytes,
                                  std::vector<int64_t>& recv_displs) {
  return transport.exchange(device && ps.cuda(), route, send, send_bytes, send_displs, recv,
                            recv_bytes, recv_displs, ps.stream(), ws.host_side()[U::send],
                            ws.host_side()[U::recv], stats);
}

Transport::Flight DistContext::start_exchange(bool device, Route route, const void* send,
                                              const std::vector<int64_t>& send_bytes,
                                              const std::vector<int64_t>& send_displs, void* recv,
                                              const std::vector<int64_t>& recv_bytes,
                                              std::vector<int64_t>& recv_displs) {
  return transport.start(device && ps.cuda(), route, send, send_bytes, send_displs, recv,
                         recv_bytes, recv_displs, ps.stream(), ws.host_side()[U::send],
                         ws.host_side()[U::recv], stats);
}

void DistContext::reserve_peers(bool device, size_t words) {
  ws.host_side()[U::peers].ensure_as<int64_t>(words);
  if (device && ps.cuda()) ws.device_side()[U::peers].ensure_as<int64_t>(words);
}

int64_t* DistContext::upload_peers(bool device,
                                   const std::vector<const std::vector<int64_t>*>& arrays) {
  size_t total = 0;
  for (auto* a : arrays) total += a->size();
  reserve_peers(device, total);
  int64_t* h = static_cast<int64_t*>(ws.host_side()[U::peers].data());
  size_t at = 0;
  for (auto* a : arrays) {
    std::copy(a->begin(), a->end(), h + at);
    at += a->size();
  }
  if (!(device && ps.cuda())) return h;
  int64_t* d = static_cast<int64_t*>(ws.device_side()[U::peers].data());
  copy_bytes(d, h, total * sizeof(int64_t), true, ps.stream());
  return d;
}

}  // namespace pvec::impl
