# SPDX-License-Identifier: GPL-2.0
#
# The parsers of scripts/bench/bench-report: from the tagged lines of the
# guests (scripts/bench/bench) to numbers, one pair of measurements at a
# time.
import re

MIB = 1048576 / 1e6          # MiB/s -> MB/s


def parse(path):
    """@@HOST lines, and the tagged lines of each guest by pair: a guest
    prints "@@ROUND N" before the Nth pair of measurements. Returns (host,
    once, rounds): once holds what was measured before the first pair,
    rounds[N - 1] what the Nth pair measured."""
    host, once, rounds = {}, {}, []
    cur = {}                                # guest prefix -> its round
    for raw in open(path, errors="replace"):
        line = raw.rstrip("\r\n")
        g = re.match(r"^\[([0-9])\] ", line)
        guest = g.group(1) if g else ""
        line = line[g.end():] if g else line
        m = re.match(r"^@@HOST (\S+) (.*)$", line)
        if m:
            host[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^@@ROUND (\d+)$", line)
        if m:
            cur[guest] = int(m.group(1))
            while len(rounds) < cur[guest]:
                rounds.append({})
            continue
        m = re.match(r"^(@@[A-Z0-9]+) ?(.*)$", line)
        if m:
            r = cur.get(guest, 0)
            tagged = rounds[r - 1] if r else once
            tagged.setdefault(m.group(1)[2:], []).append(m.group(2))
    return host, once, rounds


def ntb(lines):
    """Round trips (ns), the memcpy table and the window stream (MB/s)."""
    rtt, copy, stream = {}, [], None
    for l in lines:
        m = re.match(r"^window stream of (\d+) KiB pieces.*: (\d+) MB/s", l)
        if m:
            stream = (int(m.group(1)) * 1024, int(m.group(2)))
            continue
        m = re.match(r"^(.*?)\s+min\s+(\d+)\s+median\s+(\d+)\s+mean\s+(\d+)\s+max\s+(\d+) ns", l)
        if m:
            key = "doorbell" if "doorbell" in m.group(1) else "word"
            rtt[key] = dict(min=int(m.group(2)), median=int(m.group(3)),
                            mean=int(m.group(4)), max=int(m.group(5)))
            continue
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)%", l)
        if m:
            copy.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    return rtt, copy, stream


def host_cpus(path):
    """host-cpu-probe samples (ns) by the step they fell into, in order."""
    step, by_step = "boot", {}
    for raw in open(path, errors="replace"):
        line = re.sub(r"^\[[0-9]\] ", "", raw.rstrip("\r\n"))
        m = re.match(r"^@@STEP (\S+)", line)
        if m:
            step = m.group(1)
            continue
        m = re.match(r"^@@HOSTCPU (\d+)$", line)
        if m:
            by_step.setdefault(step, []).append(int(m.group(1)))
    return by_step


def dma(lines):
    for l in lines:
        m = re.search(r"summary (\d+) tests, (\d+) failures ([\d.]+) iops (\d+) KB/s", l)
        if m:
            return dict(tests=int(m.group(1)), failures=int(m.group(2)),
                        iops=float(m.group(3)),
                        mbs=int(m.group(4)) * 1024 / 1e6)
    return None


def sizes_table(lines):
    """size -> (round trip us, stream MiB/s, median round trip us or None)
    from scif-ntb-test/tcp bench (only scif-ntb-test prints the median)."""
    t = {}
    for l in lines or []:
        m = re.match(r"^(\d+)\s+([\d.]+)\s+([\d.]+)(?:\s+([\d.]+))?\s*$", l)
        if m:
            t[int(m.group(1))] = (float(m.group(2)), float(m.group(3)),
                                  float(m.group(4)) if m.group(4) else None)
    return t


def rma(lines):
    bw, reg, lat, floor, skipped = {}, {}, {}, None, []
    part = None
    for l in lines or []:
        if l.startswith("RMA bandwidth"):
            part = "b"
        elif l.startswith("registration cost"):
            part = "r"
        elif l.startswith("latency of an 8-byte"):
            part = "l"
        m = re.search(r"a writeto of 0 bytes: ([\d.]+) us", l)
        if m:
            floor = float(m.group(1))
        nums = l.split()
        if not nums or not re.match(r"^\d+$", nums[0]):
            continue
        if part == "l" and "not measured" in l:
            skipped.append(int(nums[0]))
            continue
        try:
            vals = [float(x) for x in nums]
        except ValueError:
            continue
        if part == "b" and len(vals) == 5:
            bw[int(vals[0])] = dict(wcpu=vals[1], wdma=vals[2],
                                    rcpu=vals[3], rdma=vals[4])
        elif part == "r" and len(vals) == 6:
            reg[int(vals[0])] = dict(rounds=vals[1], reg_us=vals[2],
                                     reg_med_us=vals[3], unreg_us=vals[4],
                                     per_page=vals[5])
        elif part == "l" and len(vals) == 5:
            lat[int(vals[0])] = dict(reg_s=vals[1], peer_s=vals[2],
                                     cpu_us=vals[3], dma_us=vals[4])
    return bw, reg, lat, floor, skipped


def perf(lines):
    """ntb_perf's total rate (MBytes/s, its MiB-free decimal unit) or None."""
    rate = None
    for l in lines or []:
        m = re.search(r"copied (\d+) bytes in (\d+) usecs, (\d+) MBytes/s", l)
        if m and rate is None:
            rate = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return rate


def loopback(lines):
    """scif-bench -q rows: name -> (bytes, us per iteration, MiB/s or None)."""
    t = {}
    for l in lines or []:
        m = re.match(r"^(ioctl|roundtrip|spinstream|spin|stream)"
                     r"\s+(\d+)\s+\d+\s+([\d.]+)\s+(\S+)", l)
        if m:
            mbs = float(m.group(4)) if m.group(4) != "-" else None
            t[m.group(1)] = (int(m.group(2)), float(m.group(3)), mbs)
    return t


def mpi(lines):
    """mpi-check pingpong rows: size -> dict(iters, rtt (median round trip,
    us), rtt_mean, mbs (2 x size / median round trip, MB/s), mbs_mean)."""
    t = {}
    for l in lines or []:
        m = re.match(r"^pingpong\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)"
                     r"\s+([\d.]+)\s+([\d.]+)\s*$", l)
        if m:
            t[int(m.group(1))] = dict(iters=int(m.group(2)), rtt=float(m.group(3)),
                                      rtt_mean=float(m.group(4)), mbs=float(m.group(5)),
                                      mbs_mean=float(m.group(6)))
    return t


MPI_WAYS = (("MPISCIF", "scif"), ("MPITCP", "tcp"), ("MPIOFITCP", "ofi_tcp"))


def measure(tg):
    """Every figure of one pair of measurements (tagged lines by tag)."""
    m = {}
    m["rtt"], m["copy"], m["wstream"] = ntb(tg.get("NTB", []))
    m["raw_dma"] = dma(tg.get("DMA", []))
    for k in ("S0", "S200", "SP", "TCP", "NTBTCP", "SX", "RT0", "RT1", "RT2"):
        m[k.lower()] = sizes_table(tg.get(k))
    m["ntbperf"] = perf(tg.get("PERF"))
    m["bw"], m["reg"], m["lat"], m["floor"], m["skipped"] = rma(tg.get("RMA"))
    m["first_reg"] = None
    for l in tg.get("RMA", []):
        f = re.search(r"first registration of the endpoint \(1 page\): ([\d.]+) us", l)
        if f:
            m["first_reg"] = float(f.group(1))
    m["lb"] = loopback(tg.get("LB"))
    m["lbbw"] = rma(tg.get("LBRMA"))[0]
    m["sxbw"] = rma(tg.get("SXRMA"))[0]
    m["rtbw0"] = rma(tg.get("RTRMA0"))[0]
    m["rtbw1"] = rma(tg.get("RTRMA1"))[0]
    m["copy_at"] = {c[0]: c for c in m["copy"]}
    m["mpi"] = {name: mpi(tg.get(tag)) for tag, name in MPI_WAYS}
    return m
