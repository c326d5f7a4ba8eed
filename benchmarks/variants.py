"""Benchmark: project and romanize all 205 SIB-200 variants x 1,004 sentences.

Run: ``python benchmarks/variants.py [--runs 3] [--workers 2]``

Generated data (in a temporary folder, not committed): for each of the 205
FLORES-200 codes of SIB-200, a pair of raw parallel files (997 + 1,012 lines)
whose annotated lines carry the shipped translation of a variant in the same
script (Brahmic scripts with no shipped text get hin_Deva converted with
indic-transliteration; the few scripts with no shipped text at all, e.g.
Cyrillic or Hangul, get a shipped Latin text and their code's script becomes
``Latn``). The other lines are shipped sentences of the same variant written
backwards, so that every file is full, in script, and free of duplicates.

Timed: ``project_topic`` for all 205 variants (every check) and
``romanize_variant`` for the 22 Brahmic + Urdu variants (leftover count,
determinism and round trip included), over a process pool (fork). The Urdu
job goes first, so the worker that loads uroman's tables (seconds) does it
while the other worker projects.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indic_transliteration import sanscript  # noqa: E402

from schemas.io import read_sib_tsv  # noqa: E402
from builder.variants import brahmic  # noqa: E402
from builder.variants.parallel import FLORES_LINES  # noqa: E402

SIB = ROOT / "tests" / "data" / "sib200"
FLORES_200 = """ace_Arab ace_Latn acm_Arab acq_Arab aeb_Arab afr_Latn ajp_Arab aka_Latn als_Latn amh_Ethi apc_Arab
arb_Arab arb_Latn ars_Arab ary_Arab arz_Arab asm_Beng ast_Latn awa_Deva ayr_Latn azb_Arab azj_Latn bak_Cyrl bam_Latn
ban_Latn bel_Cyrl bem_Latn ben_Beng bho_Deva bjn_Arab bjn_Latn bod_Tibt bos_Latn bug_Latn bul_Cyrl cat_Latn ceb_Latn
ces_Latn cjk_Latn ckb_Arab crh_Latn cym_Latn dan_Latn deu_Latn dik_Latn dyu_Latn dzo_Tibt ell_Grek eng_Latn epo_Latn
est_Latn eus_Latn ewe_Latn fao_Latn fij_Latn fin_Latn fon_Latn fra_Latn fur_Latn fuv_Latn gaz_Latn gla_Latn gle_Latn
glg_Latn grn_Latn guj_Gujr hat_Latn hau_Latn heb_Hebr hin_Deva hne_Deva hrv_Latn hun_Latn hye_Armn ibo_Latn ilo_Latn
ind_Latn isl_Latn ita_Latn jav_Latn jpn_Jpan kab_Latn kac_Latn kam_Latn kan_Knda kas_Arab kas_Deva kat_Geor kaz_Cyrl
kbp_Latn kea_Latn khk_Cyrl khm_Khmr kik_Latn kin_Latn kir_Cyrl kmb_Latn kmr_Latn knc_Arab knc_Latn kon_Latn kor_Hang
lao_Laoo lij_Latn lim_Latn lin_Latn lit_Latn lmo_Latn ltg_Latn ltz_Latn lua_Latn lug_Latn luo_Latn lus_Latn lvs_Latn
mag_Deva mai_Deva mal_Mlym mar_Deva min_Arab min_Latn mkd_Cyrl mlt_Latn mni_Beng mos_Latn mri_Latn mya_Mymr nld_Latn
nno_Latn nob_Latn npi_Deva nqo_Nkoo nso_Latn nus_Latn nya_Latn oci_Latn ory_Orya pag_Latn pan_Guru pap_Latn pbt_Arab
pes_Arab plt_Latn pol_Latn por_Latn prs_Arab quy_Latn ron_Latn run_Latn rus_Cyrl sag_Latn san_Deva sat_Olck scn_Latn
shn_Mymr sin_Sinh slk_Latn slv_Latn smo_Latn sna_Latn snd_Arab som_Latn sot_Latn spa_Latn srd_Latn srp_Cyrl ssw_Latn
sun_Latn swe_Latn swh_Latn szl_Latn tam_Taml taq_Latn taq_Tfng tat_Cyrl tel_Telu tgk_Cyrl tgl_Latn tha_Thai tir_Ethi
tpi_Latn tsn_Latn tso_Latn tuk_Latn tum_Latn tur_Latn twi_Latn tzm_Tfng uig_Arab ukr_Cyrl umb_Latn urd_Arab uzn_Latn
vec_Latn vie_Latn war_Latn wol_Latn xho_Latn ydd_Hebr yor_Latn yue_Hant zho_Hans zho_Hant zsm_Latn zul_Latn""".split()
SCRIPT_ALIASES = {"Hant": "Hans"}  # Han text serves both


def shipped() -> dict[str, dict[int, str]]:
    out = {}
    for folder in sorted((SIB / "annotated").iterdir()):
        out[folder.name] = {int(r["index_id"]): r["text"] for s in ("train", "dev", "test")
                            for r in read_sib_tsv(folder / f"{s}.tsv")}
    return out


def generate(root: Path) -> list[tuple[str, Path, Path]]:
    """Write raw parallel files for the 205 codes; return (code, dev, devtest)."""
    texts = shipped()
    by_script: dict[str, list[str]] = {}
    for code in texts:
        by_script.setdefault(code.split("_")[1], []).append(code)
    variants, used = [], set()
    for n, code in enumerate(FLORES_200):
        lang, script = code.split("_")
        if code in texts:
            text = texts[code]
        elif SCRIPT_ALIASES.get(script, script) in by_script:
            pool = by_script[SCRIPT_ALIASES.get(script, script)]
            text = texts[pool[n % len(pool)]]
        elif script in brahmic.BRAHMIC_SCRIPTS:
            target = brahmic.BRAHMIC_SCRIPTS[script]
            text = {k: sanscript.transliterate(v, sanscript.DEVANAGARI, target) for k, v in texts["hin_Deva"].items()}
        else:
            pool = by_script["Latn"]
            text, code = texts[pool[n % len(pool)]], f"{lang}_Latn"
        if code in used:
            continue
        used.add(code)
        ids = sorted(text)
        lines, j = [], 0
        for i in range(sum(FLORES_LINES)):
            if i in text:
                lines.append(text[i])
            else:  # filler: another sentence of this variant reversed (and rotated on the second pass)
                chars = text[ids[j % len(ids)]][::-1]
                k = j // len(ids)
                lines.append(chars[k:] + chars[:k])
                j += 1
        dev, devtest = root / f"{code}.dev", root / f"{code}.devtest"
        dev.write_text("".join(f"{x}\n" for x in lines[:FLORES_LINES[0]]), encoding="utf-8")
        devtest.write_text("".join(f"{x}\n" for x in lines[FLORES_LINES[0]:]), encoding="utf-8")
        variants.append((code, dev, devtest))
    return variants


def romanizable(code: str) -> bool:
    script = code.split("_")[1]
    return script in brahmic.BRAHMIC_SCRIPTS or code == "urd_Arab"


def work(job):
    code, dev, devtest, out = job
    from builder.variants.project import project_topic
    from builder.variants.romanize import romanize_variant

    t0 = time.perf_counter()
    res = project_topic(SIB / "eng", [dev, devtest], code, out / "projected")
    t1 = time.perf_counter()
    left = None
    if romanizable(code):
        left = romanize_variant(res.out_dir, out / "romanized", allow_leftover=True).leftover
    t2 = time.perf_counter()
    return code, t1 - t0, t2 - t1, left


def run_once(variants, out: Path, workers: int) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    jobs = sorted(((c, d, dt, out) for c, d, dt in variants), key=lambda j: (not j[0].startswith("urd"),
                                                                               not romanizable(j[0]), j[0]))
    with get_context("fork").Pool(workers) as pool:
        results = pool.map(work, jobs, chunksize=1)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    slowest = sorted(results, key=lambda r: -(r[1] + r[2]))[:3]
    return {"wall": wall, "cpu": cpu, "slowest": [(r[0], round(r[1] + r[2], 1)) for r in slowest], "project_cpu": sum(r[1] for r in results), "romanize_cpu": sum(r[2] for r in results),
            "romanized": sum(1 for r in results if r[3] is not None),
            "leftover": {r[0]: r[3] for r in results if r[3]}, "n": len(results)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        (tmp / "raw").mkdir()
        variants = generate(tmp / "raw")
        print(f"generated {len(variants)} variants x 1,004 items in {time.perf_counter() - t:.1f} s (not timed)")
        runs = []
        for k in range(args.runs):
            load = os.getloadavg()[0]
            r = run_once(variants, tmp / f"run{k}", args.workers)
            runs.append(r)
            print(f"run {k + 1} (1-min load average before: {load:.1f}): {r['wall']:.1f} s wall, "
                  f"{r['cpu']:.1f} CPU s ({r['n']} projected, {r['romanized']} romanized; worker wall time: "
                  f"projection {r['project_cpu']:.1f} s, romanization {r['romanize_cpu']:.1f} s; "
                  f"slowest {r['slowest']})")
        peak_mb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        cpu = statistics.median(r["cpu"] for r in runs)
        print(f"median CPU: {cpu:.1f} s -> {cpu / args.workers:.1f} s on {args.workers} dedicated cores")
        print(f"median wall: {statistics.median(r['wall'] for r in runs):.1f} s over {len(runs)} runs, "
              f"{args.workers} workers; peak RSS per process {peak_mb:.0f} MiB")
        print(f"native letters left (generated text, --allow-leftover): {runs[-1]['leftover'] or 'none'}")


if __name__ == "__main__":
    main()
