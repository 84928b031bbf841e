#!/bin/bash
# One prepared run for a lent H100/H200 machine (the device tool), in order of priority:
#   1. tools/hw/mufu_sweep.cu: the result bits of sqrt/lg2/tanh/sin/cos.approx over whole binades
#      (issue 31, item 4), each sweep compressed (xz) and packed in at most four tar files;
#   2. every probe of tools/hw/probes (run_probes.sh) and the ubench programs that wait for a GPU
#      (scatter_store, atomic_tput; issue 31's model assumptions);
#   3. timing-mode speed at 1, 2, 4, 8 and 16 host threads on the H100 preset (bench/timing_speed.sh,
#      samples/matmul) and the engine profile at 16 threads (issue 32, item 3);
#   4. the native check of every test program (tools/hw/native_check.sh).
# Text output goes to one tar (text.tar.gz); at most 7 files under $OUT (8 allowed).
# Carry (built here, Release): build/bin/bench_timing build/lib build/bench build/samples/stencil
# build/samples/matmul .devlibs (copies of libzstd.so.1 and liblz4.so.1, which libcudart needs).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:?set OUT}
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
tmp=$(mktemp -d)
txt=$tmp/text
mkdir -p "$txt" "$tmp/sw"
log=$txt/log.txt
stamp() { echo "### $(( $(date +%s) - t0 )) s: $*" >> "$log"; }
{
  date -u; git -C "$root" log -1 --format=%H 2>/dev/null; nproc; free -g | head -2
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -2
} > "$log" 2>&1
pack() { tar -C "$tmp" -czf "$out/text.tar.gz" text; }

# 1. MUFU sweeps
stamp sweeps
if nvcc -O2 -arch=sm_90 -o "$tmp/mufu_sweep" "$root/tools/hw/mufu_sweep.cu" >> "$log" 2>&1; then
  timeout 150 "$tmp/mufu_sweep" "$tmp/sw" > "$txt/sweeps.txt" 2>&1; echo "exit $?" >> "$txt/sweeps.txt"
  cuobjdump -sass "$tmp/mufu_sweep" 2>&1 | gzip -9 > "$txt/mufu_sweep.sass.gz"
  stamp compress
  timeout 120 python3 - "$tmp/sw" >> "$log" 2>&1 <<'PY'
import lzma, os, sys
from multiprocessing import Pool
d = sys.argv[1]
def comp(n):
    p = os.path.join(d, n)
    with open(p, "rb") as f, open(p + ".xz", "wb") as g:
        g.write(lzma.compress(f.read(), preset=6))
    os.remove(p)
    return n
names = sorted(n for n in os.listdir(d) if n.endswith(".d"))
names.sort(key=lambda n: -os.path.getsize(os.path.join(d, n)))
with Pool(os.cpu_count()) as pool:
    for n in pool.imap_unordered(comp, names):
        pass
print("compressed", len(names))
PY
  ls -la "$tmp/sw" >> "$log"
  (cd "$tmp/sw" && tar -cf "$out/sweeps_sqrt_lg2_tanh.tar" sqrt* lg2* tanh* 2>> "$log";
   tar -cf "$out/sweeps_sin.tar" sin* 2>> "$log"; tar -cf "$out/sweeps_cos.tar" cos* 2>> "$log")
  for f in "$out"/sweeps_*.tar; do
    if [ "$(stat -c %s "$f")" -gt 16000000 ]; then split -b 15M -d "$f" "$f." && rm "$f"; fi
  done
fi
stamp math_bits
if nvcc -cudart shared -O2 -arch=sm_90 -o "$tmp/math_bits" "$root/tools/hw/probes/math_bits.cu" >> "$log" 2>&1; then
  timeout 60 "$tmp/math_bits" "$tmp/bits.bin" > "$txt/math_bits_gpu.txt" 2>> "$log"
  # keep the full results of the operations ptxsim does not yet match (name[16], count, outputs)
  timeout 60 python3 - "$tmp/bits.bin" "$out/math_bits_rest.bin.xz" >> "$log" 2>&1 <<'PY'
import lzma, struct, sys
keep = {"lg2", "lg2.ftz", "sqrt.approx", "sqrt.approx.ftz", "sin.ftz", "cos.ftz", "tanh", "__logf", "__sinf"}
data = open(sys.argv[1], "rb").read()
i, parts = 0, []
while i < len(data):
    name = data[i:i + 16].split(b"\0")[0].decode()
    n = struct.unpack_from("<I", data, i + 16)[0]
    if name in keep:
        parts.append(data[i:i + 20 + 4 * n])
    i += 20 + 4 * n
open(sys.argv[2], "wb").write(lzma.compress(b"".join(parts), preset=6))
print("math_bits kept", len(parts))
PY
fi
pack

# 2. probes and micro-benchmarks
stamp probes
timeout 150 bash "$root/tools/hw/run_probes.sh" "$txt/probes.txt" >> "$log" 2>&1
stamp ubench
for u in scatter_store atomic_tput; do
  { echo "##### $u"
    nvcc -cudart shared -O2 -arch=sm_90 "$root/tools/correlate/ubench/$u.cu" -o "$tmp/$u" 2>&1 &&
      timeout 40 "$tmp/$u"; echo "exit $?"; } >> "$txt/ubench.txt" 2>&1
done
pack

# 3. timing-mode speed on 16 cores
stamp speed
export LD_LIBRARY_PATH=$root/build/lib:$root/.devlibs
(cd "$root" && PRESETS=h100 timeout 150 sh bench/timing_speed.sh build 1 2 4 8 16) > "$txt/speed.txt" 2>&1
echo "speed rc $?" >> "$txt/speed.txt"
for t in 1 2 4 8 16; do
  { echo "== matmul, $t host thread(s)"
    ( cd "$root" && /usr/bin/time -f "wall %e s, user %U s, sys %S s" env PTXSIM_MODE=timing PTXSIM_SAMPLE=off \
      PTXSIM_THREADS=$t PTXSIM_SUMMARY=1 PTXSIM_CONFIG=configs/h100.config timeout 60 build/samples/matmul/matmul ) 2>&1 |
      grep -i -E "cycles|wall|error|PASS|FAIL" | head -8; } >> "$txt/speed.txt"
done
(cd "$root" && timeout 60 sh bench/timing_profile.sh build 16 h100) > "$txt/profile16.txt" 2>&1
(cd "$root" && timeout 60 sh bench/timing_profile.sh build 1 h100) > "$txt/profile1.txt" 2>&1
pack

# 4. native check of the test programs
stamp native
unset LD_LIBRARY_PATH
timeout 170 bash "$root/tools/hw/native_check.sh" "$txt/native" 16 > "$txt/native.log" 2>&1
echo "native rc $?" >> "$txt/native.log"
stamp done
ls -la "$out" >> "$log"
pack
