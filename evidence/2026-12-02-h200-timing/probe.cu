// Probe: NVML energy counter period, clocks, throttle reasons; CUDA graphs with captured event records.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>
#include <nvml.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)
#define NK(x) do { nvmlReturn_t r = (x); if (r != NVML_SUCCESS) { printf("NVML %s: %s\n", #x, nvmlErrorString(r)); } } while (0)
using clk = std::chrono::steady_clock;
static double now_ms() { return std::chrono::duration<double, std::milli>(clk::now().time_since_epoch()).count(); }
__global__ void gray(const unsigned char* in, unsigned char* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    out[i] = (unsigned char)((77u * in[3*i] + 150u * in[3*i+1] + 29u * in[3*i+2]) >> 8);
  }
}
__global__ void flush(int* p, size_t n) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] += 1; }
void poll_energy(nvmlDevice_t d, double seconds, const char* what) {
  unsigned long long e, last; NK(nvmlDeviceGetTotalEnergyConsumption(d, &last));
  double t0 = now_ms(), tl = t0; std::vector<double> gaps; std::vector<unsigned long long> deltas; long polls = 0;
  while (now_ms() - t0 < seconds * 1000) { nvmlDeviceGetTotalEnergyConsumption(d, &e); polls++;
    if (e != last) { double t = now_ms(); gaps.push_back(t - tl); deltas.push_back(e - last); tl = t; last = e; } }
  printf("energy %s: %ld polls in %.0f ms (%.1f us/poll), %zu changes; gaps ms:", what, polls, seconds*1000, seconds*1e6/polls, gaps.size());
  for (size_t i = 0; i < gaps.size() && i < 40; i++) printf(" %.1f(+%llu mJ)", gaps[i], deltas[i]); printf("\n");
}
int main() {
  NK(nvmlInit_v2()); nvmlDevice_t d; NK(nvmlDeviceGetHandleByIndex_v2(0, &d));
  char name[96]; NK(nvmlDeviceGetName(d, name, 96)); char uuid[96]; NK(nvmlDeviceGetUUID(d, uuid, 96));
  unsigned sm, smmax, smdef = 0, smapp = 0, mem; NK(nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &sm)); NK(nvmlDeviceGetMaxClockInfo(d, NVML_CLOCK_SM, &smmax));
  NK(nvmlDeviceGetDefaultApplicationsClock(d, NVML_CLOCK_SM, &smdef)); NK(nvmlDeviceGetApplicationsClock(d, NVML_CLOCK_SM, &smapp)); NK(nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &mem));
  unsigned long long reasons = 0; NK(nvmlDeviceGetCurrentClocksEventReasons(d, &reasons));
  unsigned power = 0; NK(nvmlDeviceGetPowerUsage(d, &power)); int cr; cudaDeviceGetAttribute(&cr, cudaDevAttrClockRate, 0);
  printf("%s %s: sm %u MHz, max %u, default app %u, app %u, mem %u, cudaDevAttrClockRate %d kHz, reasons 0x%llx, power %u mW\n", name, uuid, sm, smmax, smdef, smapp, mem, cr, reasons, power);
  double t = now_ms(); for (int i = 0; i < 1000; i++) nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &sm); printf("clock call %.2f us\n", (now_ms()-t));
  t = now_ms(); for (int i = 0; i < 1000; i++) nvmlDeviceGetCurrentClocksEventReasons(d, &reasons); printf("reasons call %.2f us\n", (now_ms()-t));
  poll_energy(d, 1.0, "idle");
  size_t n = 11520ull * 5760; unsigned char *in, *out; int* fl; size_t fn = 2ull * 60 * 1024 * 1024 / 4 * 2;
  CK(cudaMalloc(&in, 3*n)); CK(cudaMalloc(&out, n)); CK(cudaMalloc(&fl, fn*4)); CK(cudaMemset(in, 7, 3*n));
  int threads = 256; int bps; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, gray, threads, 0); int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int grid = bps * sms; cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t ev[64]; for (int i = 0; i < 64; i++) CK(cudaEventCreate(&ev[i]));
  for (int i = 0; i < 10; i++) gray<<<grid, threads, 0, s>>>(in, out, n); CK(cudaStreamSynchronize(s));
  // batch: 10 launches between one pair
  float ms; std::vector<float> b;
  for (int r = 0; r < 20; r++) { cudaEventRecord(ev[0], s); for (int i = 0; i < 10; i++) gray<<<grid, threads, 0, s>>>(in, out, n); cudaEventRecord(ev[1], s); cudaStreamSynchronize(s); cudaEventElapsedTime(&ms, ev[0], ev[1]); b.push_back(ms/10); }
  printf("batch x10 ms:"); for (float x : b) printf(" %.4f", x); printf("\n");
  // graph of 10 launches, events outside
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)); for (int i = 0; i < 10; i++) gray<<<grid, threads, 0, s>>>(in, out, n); CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiateWithFlags(&ge, g, 0));
  CK(cudaGraphLaunch(ge, s)); CK(cudaStreamSynchronize(s)); std::vector<float> gr;
  for (int r = 0; r < 20; r++) { cudaEventRecord(ev[0], s); cudaGraphLaunch(ge, s); cudaEventRecord(ev[1], s); cudaStreamSynchronize(s); cudaEventElapsedTime(&ms, ev[0], ev[1]); gr.push_back(ms/10); }
  printf("graph x10 ms:"); for (float x : gr) printf(" %.4f", x); printf("\n");
  // graph with events captured inside: [flush, rec, gray, rec] x 8
  cudaGraph_t g2; cudaGraphExec_t ge2;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 8; i++) { flush<<<grid, threads, 0, s>>>(fl, fn); CK(cudaEventRecord(ev[2*i], s)); gray<<<grid, threads, 0, s>>>(in, out, n); CK(cudaEventRecord(ev[2*i+1], s)); }
  CK(cudaStreamEndCapture(s, &g2)); CK(cudaGraphInstantiateWithFlags(&ge2, g2, 0));
  size_t nodes; cudaGraphGetNodes(g2, nullptr, &nodes); printf("graph with events: %zu nodes\n", nodes);
  for (int r = 0; r < 3; r++) { CK(cudaGraphLaunch(ge2, s)); CK(cudaStreamSynchronize(s)); printf("graph flush+events ms:"); for (int i = 0; i < 8; i++) { cudaError_t e = cudaEventElapsedTime(&ms, ev[2*i], ev[2*i+1]); if (e) printf(" err(%s)", cudaGetErrorString(e)); else printf(" %.4f", ms); } printf("\n"); }
  // graph with events inside, no flush
  cudaGraph_t g3; cudaGraphExec_t ge3;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 8; i++) { CK(cudaEventRecord(ev[2*i], s)); gray<<<grid, threads, 0, s>>>(in, out, n); CK(cudaEventRecord(ev[2*i+1], s)); }
  CK(cudaStreamEndCapture(s, &g3)); CK(cudaGraphInstantiateWithFlags(&ge3, g3, 0));
  for (int r = 0; r < 3; r++) { CK(cudaGraphLaunch(ge3, s)); CK(cudaStreamSynchronize(s)); printf("graph events-inside noflush ms:"); for (int i = 0; i < 8; i++) { cudaEventElapsedTime(&ms, ev[2*i], ev[2*i+1]); printf(" %.4f", ms); } printf("\n"); }
  // cold-ish: flush then events around single launch on stream
  printf("stream flush+launch ms:"); for (int r = 0; r < 8; r++) { flush<<<grid, threads, 0, s>>>(fl, fn); cudaEventRecord(ev[0], s); gray<<<grid, threads, 0, s>>>(in, out, n); cudaEventRecord(ev[1], s); cudaStreamSynchronize(s); cudaEventElapsedTime(&ms, ev[0], ev[1]); printf(" %.4f", ms); } printf("\n");
  // energy under load: launch graph repeatedly for 1.5 s on the stream while polling
  unsigned long long e0, e1; NK(nvmlDeviceGetTotalEnergyConsumption(d, &e0)); double t0 = now_ms(); int launched = 0;
  while (now_ms() - t0 < 1500) { cudaGraphLaunch(ge, s); launched += 10; if (launched % 100 == 0) cudaStreamSynchronize(s); }
  cudaStreamSynchronize(s); double t1 = now_ms(); NK(nvmlDeviceGetTotalEnergyConsumption(d, &e1));
  NK(nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &sm)); NK(nvmlDeviceGetCurrentClocksEventReasons(d, &reasons)); NK(nvmlDeviceGetPowerUsage(d, &power));
  printf("load: %d launches in %.1f ms, %llu mJ, %.1f W, %.3f mJ/launch; sm %u MHz reasons 0x%llx power %u mW\n", launched, t1-t0, e1-e0, (e1-e0)/(t1-t0), (double)(e1-e0)/launched, sm, reasons, power);
  // poll energy while loaded (background stream keeps launching via a long batch)
  for (int i = 0; i < 2000; i++) gray<<<grid, threads, 0, s>>>(in, out, n);
  poll_energy(d, 0.4, "loaded");
  NK(nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &sm)); NK(nvmlDeviceGetCurrentClocksEventReasons(d, &reasons)); printf("during load: sm %u reasons 0x%llx\n", sm, reasons);
  cudaStreamSynchronize(s);
  nvmlViolationTime_t v; NK(nvmlDeviceGetViolationStatus(d, NVML_PERF_POLICY_POWER, &v)); printf("violation power: ref %llu time %llu\n", v.referenceTime, v.violationTime);
  NK(nvmlShutdown()); return 0;
}
