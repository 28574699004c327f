# SPDX-License-Identifier: GPL-2.0
#
# The targets of make bench: read from scripts/bench/targets.csv (id, what,
# scif, reference, bound, threshold), each taken as a ratio of a SCIF
# figure to its reference measured in the same pair, then judged over
# every pair: the median ratio, its spread (min..max), and a verdict only
# where the spread allows one: "met" when every pair meets the bound,
# "missed" when none does, "undecided" otherwise, and with fewer than
# MIN_PAIRS measured pairs.
import csv
import re
import statistics

from bench_parse import MIB

MIN_PAIRS = 5


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r["bound"] not in ("<=", ">="):
            raise SystemExit("%s: %s: bound must be <= or >=" % (path, r["id"]))
        r["threshold"] = float(r["threshold"])
        if r["id"] not in VALUES:
            raise SystemExit("%s: no measurement for target %s in bench_targets.py"
                             % (path, r["id"]))
    return rows


def fm(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def _rtt8(t):
    """The 8 B round trip of a scif-ntb-test table: median, else mean."""
    r = t.get(8)
    if not r:
        return None
    return r[2] if r[2] is not None else r[0]


def rtt8_doorbell(m, host):
    db = m["rtt"].get("doorbell", {}).get("median")
    return _rtt8(m["s0"]), db / 1e3 if db else None, "us"


def rtt8_busy_poll(m, host):
    word = m["rtt"].get("word", {}).get("median")
    have = [r for r in (_rtt8(m["s200"]), _rtt8(m["sp"])) if r is not None]
    return (min(have) if have else None), (word / 1e3 if word else None), "us"


def _best_stream(m):
    st = [t[65536][1] for t in (m["s0"], m["s200"], m["sp"]) if 65536 in t]
    return max(st) if st else None          # MiB/s


def stream64k_window(m, host):
    best = _best_stream(m)
    win = m["copy_at"].get(65536, (0, 0, None))[2]
    return (best * MIB if best is not None else None), win, "MB/s"


def stream64k_tcp(m, host):
    tcp = m["tcp"].get(65536, (0, None))[1]
    return _best_stream(m), tcp, "MiB/s"


def _min_cpu(bw, size):
    return min(bw[size]["wcpu"], bw[size]["rcpu"]) if size in bw else None


def rma64m_cpu(m, host):
    big = max(m["bw"]) if m["bw"] else None
    win = m["copy_at"].get(big, (0, 0, None))[2] if big else None
    return _min_cpu(m["bw"], big), win, "MB/s"


def rma1m_dma(m, host):
    bw = m["bw"]
    d1 = min(bw[1048576]["wdma"], bw[1048576]["rdma"]) if 1048576 in bw else None
    return d1, (m["raw_dma"]["mbs"] if m["raw_dma"] else None), "MB/s"


def register1(m, host):
    db = m["rtt"].get("doorbell", {}).get("median")
    return m["reg"].get(1, {}).get("reg_med_us"), db / 1e3 if db else None, "us"


def sync8_windows(m, host):
    w = re.search(r"windows=(\d+)", host.get("params", ""))
    many = int(w.group(1)) if w else 10000
    lat = m["lat"]
    return (lat[many]["cpu_us"] if many in lat else None,
            lat.get(1, {}).get("cpu_us"), "us")


def loopback_rma64m_cpu(m, host):
    big = max(m["lbbw"]) if m["lbbw"] else None
    local = m["copy_at"].get(big, (0, None))[1] if big else None
    return _min_cpu(m["lbbw"], big), local, "MB/s"


def loopback_rtt8(m, host):
    lb = m["lb"]
    rt = [lb[k][1] for k in ("roundtrip", "spin") if k in lb]
    return (min(rt) if rt else None), lb.get("ioctl", (0, None))[1], "us"


def _best_rtt8(m):
    """The fastest SCIF 8 B round trip median of the three modes."""
    have = [r for r in (_rtt8(m["s0"]), _rtt8(m["s200"]), _rtt8(m["sp"])) if r is not None]
    return min(have) if have else None


def _mpi(m, way, size, key):
    return m["mpi"][way].get(size, {}).get(key)


def mpi_rtt8_scif(m, host):
    return _mpi(m, "scif", 8, "rtt"), _best_rtt8(m), "us"


def mpi_bw1m_rma(m, host):
    rdma = m["bw"][1048576]["rdma"] if 1048576 in m["bw"] else None
    return _mpi(m, "scif", 1048576, "mbs"), rdma, "MB/s"


def mpi_bw1m_tcp(m, host):
    return _mpi(m, "scif", 1048576, "mbs"), _mpi(m, "tcp", 1048576, "mbs"), "MB/s"


def _rtt8_hops(m, hops):
    return _rtt8(m["rt%d" % hops]), _rtt8(m["rt0"]), "us"


def routed_rtt8_1hop(m, host):
    return _rtt8_hops(m, 1)


def routed_rtt8_2hop(m, host):
    return _rtt8_hops(m, 2)


def routed_stream64k_1hop(m, host):
    one, direct = m["rt1"].get(65536), m["rt0"].get(65536)
    return (one[1] if one else None), (direct[1] if direct else None), "MiB/s"


def routed_rma1m_1hop(m, host):
    return (_min_cpu(m["rtbw1"], 1048576), _min_cpu(m["rtbw0"], 1048576),
            "MB/s")


def staged_rma1m_xlat(m, host):
    return _min_cpu(m["sxbw"], 1048576), _min_cpu(m["bw"], 1048576), "MB/s"


# target id -> its measurement: (SCIF figure, reference, unit) of one pair
VALUES = {f.__name__: f for f in (
    rtt8_doorbell, rtt8_busy_poll, stream64k_window, stream64k_tcp,
    rma64m_cpu, rma1m_dma, register1, sync8_windows, loopback_rma64m_cpu,
    loopback_rtt8, mpi_rtt8_scif, mpi_bw1m_rma, mpi_bw1m_tcp,
    routed_rtt8_1hop, routed_rtt8_2hop, routed_stream64k_1hop,
    routed_rma1m_1hop, staged_rma1m_xlat)}


def judge(targets, pairs, host):
    """pairs: the measure() of every pair, in the order they ran. Returns
    one dict per target: its row, the pairs' (scif, ref, ratio), median,
    min, max, how many pairs met, verdict."""
    out = []
    for t in targets:
        got = []
        for m in pairs:
            scif, ref, unit = VALUES[t["id"]](m, host)
            ratio = scif / ref if scif is not None and ref else None
            got.append((scif, ref, ratio, unit))
        ratios = [g[2] for g in got if g[2] is not None]

        def ok(r):
            return r <= t["threshold"] if t["bound"] == "<=" else r >= t["threshold"]
        met = sum(ok(r) for r in ratios)
        if not ratios:
            verdict = "not measured"
        elif len(ratios) < MIN_PAIRS:
            verdict = "undecided"
        elif met == len(ratios):
            verdict = "met"
        elif met == 0:
            verdict = "missed"
        else:
            verdict = "undecided"
        out.append(dict(row=t, pairs=got, n=len(ratios), met=met,
                        median=statistics.median(ratios) if ratios else None,
                        min=min(ratios) if ratios else None,
                        max=max(ratios) if ratios else None,
                        verdict=verdict))
    return out


def fr(r):
    return "-" if r is None else ("%.2f" if r >= 0.1 else "%.4f") % r


def report(results, npairs, p):
    p("\n-- targets (scripts/bench/targets.csv): each ratio is SCIF / its reference,"
      " measured alternately in %d pairs; median [min..max] --" % npairs)
    if npairs < MIN_PAIRS:
        p("   (fewer than %d pairs: no verdict is given)" % MIN_PAIRS)
    for r in results:
        t = r["row"]
        p("%-12s %-48s %6s [%s..%s] want %s %g; %d of %d pairs on the target's side"
          % (r["verdict"], t["what"], fr(r["median"]), fr(r["min"]), fr(r["max"]),
             t["bound"], t["threshold"], r["met"], r["n"]))
        p("%12s pairs (SCIF / reference): %s" % ("", ", ".join(
            "%s/%s" % (fm(s, "%.4g"), fm(f, "%.4g")) for s, f, _, _ in r["pairs"])))
    counts = {v: sum(r["verdict"] == v for r in results)
              for v in ("met", "missed", "undecided", "not measured")}
    p("%d met, %d missed, %d undecided, %d not measured, of %d targets (%d pairs)"
      % (counts["met"], counts["missed"], counts["undecided"], counts["not measured"],
         len(results), npairs))


def load_1min(uptime):
    m = re.search(r"load average: ([\d.]+)", uptime or "")
    return m.group(1) if m else ""


def history_rows(results, host, npairs):
    """This run as rows of Documentation/bench-history.csv."""
    date = re.match(r"^(\S+ \S+)", host.get("date", "?"))
    kernel = host.get("kernel", "").split()[0] if host.get("kernel") else ""
    rows = []
    for r in results:
        rows.append((date.group(1) if date else "", host.get("commit", ""),
                     kernel, "alternate", npairs, r["row"]["id"],
                     "%.4g" % r["median"] if r["median"] is not None else "",
                     "%.4g" % r["min"] if r["min"] is not None else "",
                     "%.4g" % r["max"] if r["max"] is not None else "",
                     r["verdict"].replace(" ", "-"),
                     load_1min(host.get("load-start")), load_1min(host.get("load-end"))))
    return rows
