#!/usr/bin/env python3
"""Tabiya's position index built on Apache Spark (PySpark 4).

The chess stays in Rust: every executor runs the `tabiya` binary on Parquet files of games
(mapInArrow: each Arrow batch is written to a temporary Parquet file, `tabiya spark games`
or `tabiya spark occurrences` reads it and writes its answer, which goes back to Spark).
Spark does the rest: the games read from the inputs in order, the duplicates dropped, ids
assigned in input order, and the occurrences of every position shuffled and sorted by key.
`tabiya db load OUT --db DIR` then makes the database from OUT (docs/scale.md).

  spark-submit scripts/spark/tabiya_build.py INPUT... --out DIR --tabiya /path/to/tabiya \
      [--partitions P] [--max-ply N] [--batch ROWS] [--summary FILE.json]

INPUT, in the order given (the order decides the ids, as `tabiya import A B` would):
  * a PGN file (.pgn, or .pgn.gz / .pgn.bz2 / .pgn.zst when the Hadoop codec is there): cut
    into games at "\\n[Event " by Hadoop's text reader (splittable: several tasks a file),
    each game's bytes decoded line by line as UTF-8, else Latin-1 (as Tabiya decodes a tag);
  * a Parquet file (.parquet, .pq) or a folder of them (Hive-partitioned or not: every
    .parquet file below it, in sorted path order): the games tables `tabiya import` takes
    (the Lichess schema, Tabiya's own export, or a `pgn` column). Each row group is read by
    the executor itself with pyarrow, columns and types untouched (Spark's own Parquet
    reader rejects Lichess's UTCTime column, Parquet TIME), so the files must be readable at
    the same path on every worker (shared storage).

OUT (must not exist):
  OUT/games/*.parquet   id int64 (1..n, in input order), pgn string, positions int32;
                        file names in sorted order = id order
  OUT/index/*.parquet   key binary(16, big-endian), game int64, rank int32, code int32,
                        mover int32, adj boolean: every counted position occurrence, range-
                        partitioned by key, each file sorted by (key, game); file names in
                        sorted order = key order
  OUT/summary.json      what the job read, dropped and wrote, and how long each stage took
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import pyarrow as pa
import pyarrow.parquet as pq

ORDER = ["o_input", "o_file", "o_a", "o_b"]

STAGE1 = pa.schema([
    ("o_input", pa.int32()), ("o_file", pa.int32()), ("o_a", pa.int64()), ("o_b", pa.int64()),
    ("pgn", pa.string()), ("digest", pa.binary()), ("positions", pa.int32()),
    ("error", pa.string()),
])
OCCURRENCES = pa.schema([
    ("key", pa.binary()), ("game", pa.int64()), ("rank", pa.int32()), ("code", pa.int32()),
    ("mover", pa.int32()), ("adj", pa.bool_()),
])
STAGE1_DDL = ("o_input int, o_file int, o_a long, o_b long, pgn string, digest binary, "
              "positions int, error string")
OCCURRENCES_DDL = "key binary, game long, rank int, code int, mover int, adj boolean"
PARQUET_EXT = (".parquet", ".pq")


def fail(msg):
    print(f"tabiya_build: {msg}", file=sys.stderr, flush=True)
    # spark-submit copies this process's output (standard error into its standard output)
    # on a thread of its own, which may not have copied the message when it sees the exit.
    time.sleep(1)
    sys.exit(2)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tabiya_build.py",
        description="Build Tabiya's position index on Spark (load it with `tabiya db load`).")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="PGN files, Parquet files or folders, in import order")
    p.add_argument("--out", required=True, help="output folder (must not exist)")
    p.add_argument("--tabiya", required=True,
                   help="the tabiya binary, at this path on every worker")
    p.add_argument("--partitions", type=int, default=0,
                   help="partitions of the games and of the index (default: the cluster's cores)")
    p.add_argument("--max-ply", type=int, default=None, help="count positions up to ply N")
    p.add_argument("--batch", type=int, default=5000,
                   help="games per tabiya call (the Arrow batch size)")
    p.add_argument("--tmp", default=None, help="temporary folder on the workers")
    p.add_argument("--split", choices=["prefix", "range"], default="prefix",
                   help="how the occurrences are split among the partitions: by the keys' "
                   "first 32 bits in equal ranges (one pass of tabiya occurrences; the "
                   "default) or by repartitionByRange (Spark samples the keys first, which "
                   "runs tabiya occurrences twice)")
    p.add_argument("--summary", default=None, help="also write the summary to this JSON file")
    a = p.parse_args(argv)
    if a.batch < 1:
        fail("--batch must be at least 1")
    if a.partitions < 0:
        fail("--partitions must be positive")
    if a.max_ply is not None and a.max_ply < 0:
        fail("--max-ply must be 0 or more")
    return a


# ---------------------------------------------------------------- executors: run tabiya

def decode_pgn(b):
    """A game's bytes as text: UTF-8 when valid, else each line UTF-8 or Latin-1 (Tabiya
    decodes a tag value or comment that is not UTF-8 as ISO-8859-1)."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        out = []
        for line in b.split(b"\n"):
            try:
                out.append(line.decode("utf-8"))
            except UnicodeDecodeError:
                out.append(line.decode("latin-1"))
        return "\n".join(out)


def run_tabiya(tabiya, sub, table, max_ply, tmp, usage):
    """Writes `table` to a temporary Parquet file, runs `tabiya spark SUB IN OUT` on it and
    returns OUT as a pyarrow table. `usage` gathers the child's wall and CPU seconds."""
    import resource
    d = tempfile.mkdtemp(prefix="tabiya-spark-", dir=tmp)
    try:
        inp, out = os.path.join(d, "in.parquet"), os.path.join(d, "out.parquet")
        pq.write_table(table, inp, compression="none")
        cmd = [tabiya, "spark", sub, inp, out]
        if max_ply is not None:
            cmd += ["--max-ply", str(max_ply)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            raise RuntimeError(f"cannot run {tabiya} on this worker ({e}): --tabiya must name "
                               "the tabiya binary at the same path on every worker")
        usage[0] += time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        usage[1] += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): "
                               f"{r.stderr.decode('utf-8', 'replace')[-4000:]}")
        return pq.read_table(out)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def stage1_rows(tabiya, table, order, max_ply, tmp, usage):
    """`tabiya spark games` on `table` (its rows in input order, `order` their order
    columns): one STAGE1 batch, row for row."""
    n = table.num_rows
    res = run_tabiya(tabiya, "games", table, max_ply, tmp, usage)
    if res.num_rows != n:
        raise RuntimeError(f"tabiya spark games answered {res.num_rows} rows for {n}")
    rows = res.column("row").to_pylist()
    if rows != list(range(n)):
        raise RuntimeError("tabiya spark games answered rows out of order")
    cols = [pa.array(order[i], type=STAGE1.field(i).type) for i in range(4)]
    cols += [res.column(c).combine_chunks().cast(STAGE1.field(c).type)
             for c in ("pgn", "digest", "positions", "error")]
    return pa.RecordBatch.from_arrays(cols, schema=STAGE1)


def pgn_games(args, input_index, acc):
    """mapInArrow over a PGN file's records (value: the bytes between two "\\n[Event ",
    blk: the start of the split they were read from)."""
    tabiya, max_ply, tmp, batch = args.tabiya, args.max_ply, args.tmp, args.batch

    def fn(batches):
        usage = [0.0, 0.0]
        seq = {}  # records seen per split start: the order within the split
        pending, order = [], [[], [], [], []]

        def flush():
            t = pa.table({"pgn": pa.array(pending, pa.string())})
            out = stage1_rows(tabiya, t, order, max_ply, tmp, usage)
            pending.clear()
            for o in order:
                o.clear()
            return out

        for b in batches:
            values = b.column("value").to_pylist()
            blks = b.column("blk").to_pylist()
            for v, blk in zip(values, blks):
                k = seq.get(blk, 0)
                seq[blk] = k + 1
                text = decode_pgn(v)
                if blk != 0 or k != 0:
                    text = "[Event " + text  # the delimiter ate it
                elif not text.lstrip("\ufeff \t\r\n"):
                    continue  # nothing before the file's first "[Event "
                pending.append(text)
                for o, x in zip(order, (input_index, 0, blk, k)):
                    o.append(x)
                if len(pending) >= batch:
                    yield flush()
        if pending:
            yield flush()
        acc["wall"].add(usage[0])
        acc["cpu"].add(usage[1])
    return fn


def parquet_games(args, acc):
    """mapInArrow over units (input, file index, path, row group, first row): each row group
    read with pyarrow, `batch` rows a tabiya call."""
    tabiya, max_ply, tmp, batch = args.tabiya, args.max_ply, args.tmp, args.batch

    def fn(batches):
        usage = [0.0, 0.0]
        for b in batches:
            for u in b.to_pylist():
                t = pq.ParquetFile(u["path"]).read_row_group(u["group"])
                for start in range(0, t.num_rows, batch):
                    part = t.slice(start, batch)
                    n = part.num_rows
                    first = u["first"] + start
                    order = [[u["input"]] * n, [u["file"]] * n, [0] * n,
                             list(range(first, first + n))]
                    yield stage1_rows(tabiya, part, order, max_ply, tmp, usage)
        acc["wall"].add(usage[0])
        acc["cpu"].add(usage[1])
    return fn


def occurrences(args, acc):
    """mapInArrow over (id, pgn): `tabiya spark occurrences`."""
    tabiya, max_ply, tmp = args.tabiya, args.max_ply, args.tmp

    def fn(batches):
        usage = [0.0, 0.0]
        for b in batches:
            t = pa.Table.from_batches([b]).select(["id", "pgn"])
            res = run_tabiya(tabiya, "occurrences", t, max_ply, tmp, usage)
            res = res.select(OCCURRENCES.names).cast(OCCURRENCES)
            for rb in res.to_batches(max_chunksize=65536):
                yield rb
        acc["wall"].add(usage[0])
        acc["cpu"].add(usage[1])
    return fn


# ---------------------------------------------------------------- driver

def hadoop_fs(spark, path):
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(path)
    return p.getFileSystem(conf), p


def list_parquet(spark, path):
    """The .parquet files of a file or folder (recursively), sorted by path; hidden and
    `_` files left out."""
    fs, p = hadoop_fs(spark, path)
    if not fs.exists(p):
        fail(f"{path}: no such file or folder")
    if fs.getFileStatus(p).isFile():
        return [fs.makeQualified(p).toString()]
    files = []
    it = fs.listFiles(p, True)
    while it.hasNext():
        st = it.next()
        name = st.getPath().getName()
        if name.endswith(PARQUET_EXT) and not name.startswith((".", "_")):
            files.append(st.getPath().toString())
    files.sort()
    if not files:
        fail(f"{path}: a folder with no .parquet file")
    return files


def local_path(uri):
    return uri[len("file:"):] if uri.startswith("file:") else uri


def stage_metrics(spark, groups):
    """Per job group: the stages' executor run time and CPU time, shuffle bytes, task
    count, from the driver's REST API."""
    url = spark.sparkContext.uiWebUrl
    if not url:
        return {}
    app = spark.sparkContext.applicationId
    base = f"{url}/api/v1/applications/{app}"
    try:
        jobs = json.load(urllib.request.urlopen(f"{base}/jobs", timeout=30))
        stages = json.load(urllib.request.urlopen(f"{base}/stages?status=complete",
                                                  timeout=30))
    except Exception as e:  # the UI off or unreachable: the wall times still stand
        print(f"tabiya_build: no stage metrics ({e})", file=sys.stderr)
        return {}
    by_stage = {}
    for s in stages:
        by_stage.setdefault(s["stageId"], []).append(s)
    out = {}
    for g in groups:
        ids = sorted({i for j in jobs if j.get("jobGroup") == g for i in j["stageIds"]})
        m = dict(stages=0, tasks=0, executorRunTimeSec=0.0, executorCpuTimeSec=0.0,
                 shuffleWriteBytes=0, shuffleReadBytes=0, outputBytes=0, inputBytes=0,
                 memoryBytesSpilled=0, diskBytesSpilled=0, peakExecutionMemory=0)
        for i in ids:
            for s in by_stage.get(i, []):
                m["stages"] += 1
                m["tasks"] += s.get("numCompleteTasks", 0)
                m["executorRunTimeSec"] += s.get("executorRunTime", 0) / 1e3
                m["executorCpuTimeSec"] += s.get("executorCpuTime", 0) / 1e9
                m["shuffleWriteBytes"] += s.get("shuffleWriteBytes", 0)
                m["shuffleReadBytes"] += s.get("shuffleReadBytes", 0)
                m["outputBytes"] += s.get("outputBytes", 0)
                m["inputBytes"] += s.get("inputBytes", 0)
                m["memoryBytesSpilled"] += s.get("memoryBytesSpilled", 0)
                m["diskBytesSpilled"] += s.get("diskBytesSpilled", 0)
                m["peakExecutionMemory"] = max(m["peakExecutionMemory"],
                                               s.get("peakExecutionMemory", 0))
        m["executorRunTimeSec"] = round(m["executorRunTimeSec"], 3)
        m["executorCpuTimeSec"] = round(m["executorCpuTimeSec"], 3)
        out[g] = m
    return out


def by_prefix(spark, occ, parts):
    """`occ` shuffled into `parts` partitions in key order without sampling: partition j
    gets the keys whose first 32 bits (unsigned) k have k * parts >> 32 == j. Keys are
    Zobrist hashes, so equal ranges of them hold about equal shares (a position played in
    every game, as the start, is a sliver of the whole). repartitionByRange would sample
    the keys first, running everything before the shuffle (tabiya occurrences) twice.

    Spark's hash partitioning puts a row in pmod(hash(column), parts): for each j an int
    whose hash lands in partition j is found, and each row is tagged with its range's."""
    from pyspark.sql import functions as F
    found = {}
    for r in (spark.range(0, 200000).select(F.col("id").cast("int").alias("v"))
              .select("v", F.pmod(F.hash("v"), F.lit(parts)).alias("p")).collect()):
        found.setdefault(r["p"], r["v"])
        if len(found) == parts:
            break
    if len(found) != parts:
        fail(f"no hash value found for each of {parts} partitions")
    tags = F.array(*[F.lit(found[j]) for j in range(parts)])
    prefix = F.conv(F.hex(F.substring("key", 1, 4)), 16, 10).cast("long")
    bucket = F.shiftright(prefix * F.lit(parts), 32).cast("int")
    return (occ.withColumn("_part", F.element_at(tags, bucket + 1))
            .repartition(parts, "_part").drop("_part"))


def check_index_order(out):
    """Each index file's key range (Parquet statistics) after the previous file's: the
    file names' order is the keys' order. Local output only."""
    import glob
    last = None
    for f in sorted(glob.glob(local_path(out) + "/index/*.parquet")):
        meta = pq.ParquetFile(f).metadata
        col = meta.schema.names.index("key")
        for g in range(meta.num_row_groups):
            st = meta.row_group(g).column(col).statistics
            if st is None or not st.has_min_max:
                return
            if last is not None and st.min < last:
                fail(f"{f}: keys before the previous file's last key")
            last = st.max


def main(argv):
    args = parse_args(argv)
    import warnings
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    from pyspark import StorageLevel
    from pyspark.sql import SparkSession, functions as F

    spark = (SparkSession.builder.appName("tabiya-build")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch))
             .getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    parts = args.partitions or max(sc.defaultParallelism, 1)
    spark.conf.set("spark.sql.shuffle.partitions", str(parts))

    fs, out_p = hadoop_fs(spark, args.out)
    if fs.exists(out_p):
        fail(f"{args.out} exists: give a new folder for --out")
    out = fs.makeQualified(out_p).toString()
    acc = {"wall": sc.accumulator(0.0), "cpu": sc.accumulator(0.0)}
    acc2 = {"wall": sc.accumulator(0.0), "cpu": sc.accumulator(0.0)}
    timings = {}

    # ---- Stage 1: the games, read in order, checked and digested by tabiya.
    t0 = time.perf_counter()
    sc.setJobGroup("stage1", "tabiya spark games")
    frames, described = [], []
    for i, path in enumerate(args.inputs):
        fs_i, p = hadoop_fs(spark, path)
        if not fs_i.exists(p):
            fail(f"{path}: no such file or folder")
        is_dir = fs_i.getFileStatus(p).isDirectory()
        if is_dir or path.lower().endswith(PARQUET_EXT):
            files = list_parquet(spark, path)
            units = []
            for fi, f in enumerate(files):
                try:
                    meta = pq.ParquetFile(local_path(f)).metadata
                except Exception as e:
                    fail(f"{f}: not a Parquet file pyarrow can read ({e})")
                first = 0
                for g in range(meta.num_row_groups):
                    units.append((i, fi, local_path(f), g, first))
                    first += meta.row_group(g).num_rows
            described.append({"input": path, "kind": "parquet", "files": len(files)})
            if not units:
                continue
            udf = spark.createDataFrame(
                units, "input int, file int, path string, `group` int, first long")
            udf = udf.repartition(min(len(units), max(parts, 1)))
            frames.append(udf.mapInArrow(parquet_games(args, acc), STAGE1_DDL))
        else:
            if is_dir:
                fail(f"{path}: a folder (only Parquet folders are read)")
            df = (spark.read.option("lineSep", "\n[Event ").text(path)
                  .select(F.col("value").cast("binary").alias("value"),
                          F.col("_metadata.file_block_start").alias("blk")))
            frames.append(df.mapInArrow(pgn_games(args, i, acc), STAGE1_DDL))
            described.append({"input": path, "kind": "pgn"})
    if not frames:
        fail("no input holds a game")
    s1 = frames[0]
    for f in frames[1:]:
        s1 = s1.unionByName(f)
    s1 = s1.persist(StorageLevel.DISK_ONLY)
    read = s1.count()
    timings["stage1_games_sec"] = round(time.perf_counter() - t0, 3)

    # ---- Duplicates, ids, the games table.
    t0 = time.perf_counter()
    sc.setJobGroup("ids", "duplicates dropped, ids assigned, games written")
    rejected_df = s1.filter(F.col("error").isNotNull())
    rejected = rejected_df.count()
    first_errors = (rejected_df.orderBy(*ORDER)
                    .select("o_input", "o_file", "o_b", "error",
                            F.substring_index("pgn", "\n", 1).alias("head"))
                    .limit(20).collect())
    accepted = s1.filter(F.col("error").isNull())
    firsts = (accepted.groupBy("digest")
              .agg(F.min(F.struct(*ORDER)).alias("o")).select("o.*"))
    ids = (firsts.rdd.map(tuple).sortBy(lambda t: t, numPartitions=parts)
           .zipWithIndex().map(lambda x: (*x[0], x[1] + 1)))
    ids_df = spark.createDataFrame(ids, "o_input int, o_file int, o_a long, o_b long, id long")
    games = accepted.join(ids_df, ORDER).select("id", "pgn", "positions")
    (games.repartitionByRange(parts, "id").sortWithinPartitions("id")
     .write.parquet(out + "/games"))
    timings["ids_games_sec"] = round(time.perf_counter() - t0, 3)

    stored = spark.read.parquet(out + "/games")
    kept_stats = stored.agg(F.count("*").alias("n"), F.min("id").alias("lo"),
                            F.max("id").alias("hi"), F.sum("positions").alias("pos")).first()
    kept = kept_stats["n"]
    if kept and (kept_stats["lo"] != 1 or kept_stats["hi"] != kept):
        fail(f"ids are not 1..{kept}: {kept_stats['lo']}..{kept_stats['hi']}")
    s1.unpersist()

    # ---- Stage 2: occurrences, sorted by key across the cluster.
    t0 = time.perf_counter()
    sc.setJobGroup("stage2", "tabiya spark occurrences, sorted by key")
    occ = stored.select("id", "pgn").mapInArrow(occurrences(args, acc2), OCCURRENCES_DDL)
    if args.split == "range":
        occ = occ.repartitionByRange(parts, "key")
    else:
        occ = by_prefix(spark, occ, parts)
    occ.sortWithinPartitions("key", "game").write.parquet(out + "/index")
    timings["stage2_index_sec"] = round(time.perf_counter() - t0, 3)
    if out.startswith("file:"):
        check_index_order(out)
    n_occ = spark.read.parquet(out + "/index").count()
    if n_occ != (kept_stats["pos"] or 0):
        fail(f"{n_occ} occurrences written, but the games count {kept_stats['pos']} positions")

    sc.setJobGroup("done", "summary")
    kinds = {i: d["kind"] for i, d in enumerate(described)}
    summary = {
        "inputs": described,
        "gamesRead": read,
        "rejected": rejected,
        "duplicates": read - rejected - kept,
        "gamesKept": kept,
        "positions": kept_stats["pos"] or 0,
        "occurrences": n_occ,
        "partitions": parts,
        "split": args.split,
        "maxPly": args.max_ply,
        "timings": timings,
        "tabiyaStage1": {"wallSec": round(acc["wall"].value, 3),
                         "cpuSec": round(acc["cpu"].value, 3)},
        "tabiyaStage2": {"wallSec": round(acc2["wall"].value, 3),
                         "cpuSec": round(acc2["cpu"].value, 3)},
        "sparkStages": stage_metrics(spark, ["stage1", "ids", "stage2"]),
        # A Parquet game's place is its file (index in the input's sorted files) and row;
        # a PGN game's is told by its first line.
        "firstErrors": [{"input": args.inputs[r["o_input"]],
                         **({"file": r["o_file"], "row": r["o_b"]}
                            if kinds[r["o_input"]] == "parquet" else {}),
                         "error": (r["error"] or "").split("\n")[0],
                         "game": r["head"]} for r in first_errors],
        "out": out,
    }
    text = json.dumps(summary, indent=2)
    if out.startswith("file:"):
        with open(local_path(out) + "/summary.json", "w") as f:
            f.write(text + "\n")
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(text + "\n")
    print(f"games read {read}, rejected {rejected}, duplicates {summary['duplicates']}, "
          f"kept {kept}; occurrences {n_occ} in {parts} partitions")
    print("wall: " + ", ".join(f"{k} {v}" for k, v in timings.items()))
    for e in summary["firstErrors"]:
        print(f"  rejected: {e['input']}: {e['game']}: {e['error']}")
    if rejected > len(first_errors):
        print(f"  ... and {rejected - len(first_errors)} more rejected")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
