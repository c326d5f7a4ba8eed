"""Card sections rendered from the manifests and reports a build leaves behind.

Each function returns Markdown, or None when its input is absent, so the card
leaves the section out. Reports written by other stages (``agreement.json``,
``qc_report.json``, the assembly manifest) are read tolerantly: known fields
get a readable table, anything else numeric is listed by its key path.

>>> print(filters_section({"seed": 0, "dropped": {"race": {"fill_in_blank": 29}}}))
Seed: 0.
<BLANKLINE>
Dropped records by reason:
<BLANKLINE>
| where | reason | records |
| --- | --- | --- |
| race | fill_in_blank | 29 |
"""
from __future__ import annotations

from typing import Any, Iterator

from schemas.escape import md_code, md_inline


def _flatten(obj: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _flatten(value, path + (str(key),))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj


def _num(x) -> str:
    if isinstance(x, float):
        return f"{x:.3f}"
    return f"{x:,}"


def _table(pairs, head=("where", "reason", "records")) -> str:
    rows = [f"| {' | '.join(head)} |", "|" + " --- |" * len(head)]
    for path, value in pairs:
        where = " / ".join(md_inline(p) for p in path[:-1]) or "all"
        rows.append(f"| {where} | {md_inline(path[-1]) if path else ''} | {_num(value)} |")
    return "\n".join(rows)


_ORDER = ("variant", "source", "split", "stage", "reason", "read", "kept", "dropped", "count")


def _records_table(records: list) -> str:
    """A list of flat dicts as a table: text columns first, then numbers (key order kept)."""
    rows = [r for r in records if isinstance(r, dict)]
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys and not isinstance(r[k], (dict, list))]
    keys.sort(key=lambda k: _ORDER.index(k) if k in _ORDER else len(_ORDER))
    text = [k for k in keys if not any(isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool)
                                       for r in rows)]
    cols = text + [k for k in keys if k not in text]
    out = [f"| {' | '.join(md_inline(c) for c in cols)} |",
           "|" + "".join(" --- |" if c in text else " ---: |" for c in cols)]
    for r in rows:
        out.append("| " + " | ".join("" if r.get(c) is None else
                                     (_num(r[c]) if c not in text else md_inline(r[c])) for c in cols) + " |")
    return "\n".join(out)


def _counts_block(value, head) -> str | None:
    if isinstance(value, list) and value:
        return _records_table(value)
    pairs = list(_flatten(value or {}))
    return _table(pairs, head) if pairs else None


def filters_section(manifest: dict | None) -> str | None:
    """Read, kept and dropped counts of an assembled set (``manifest.json``).

    ``counts`` and ``dropped`` may be lists of flat records (one per source and
    split, as ``builder assemble`` writes them) or nested mappings.
    """
    if not manifest or not any(k in manifest for k in ("dropped", "counts")):
        return None
    out = []
    if "seed" in manifest:
        out.append(f"Seed: {md_inline(manifest['seed'])}.")
    counts = _counts_block(manifest.get("counts"), ("where", "count", "records"))
    if counts:
        out += ["", "Records per source and stage:", "", counts]
    dropped = _counts_block(manifest.get("dropped"), ("where", "reason", "records"))
    if dropped:
        out += ["", "Dropped records by reason:", "", dropped]
    elif "dropped" in manifest:
        out += ["", "No record was dropped."]
    return "\n".join(out).strip("\n")


_AGREEMENT = (
    ("fleiss_kappa", "Fleiss' kappa"),
    ("krippendorff_alpha", "Krippendorff's alpha (nominal)"),
    ("mean_cohen_kappa", "Mean pairwise Cohen's kappa"),
    ("gwet_ac1", "Gwet's AC1"),
    ("percent_agreement", "Percent agreement"),
)


def agreement_section(rep: dict | None, *, rows: int | None = None) -> str | None:
    """Agreement figures from ``agreement.json`` (``builder annotate agreement``), and what they were
    measured on: with ``rows`` (the rows of the largest exported variant) above the judged items, the
    section says the figures are of a sample.

    >>> print(agreement_section({"n_items": 10, "n_annotators": 3, "fleiss_kappa": 0.61}))
    Measured on 10 items, 3 annotators.
    <BLANKLINE>
    | measure | value | 95% interval |
    | --- | ---: | --- |
    | Fleiss' kappa | 0.610 |  |
    >>> print(agreement_section({"n_items": 12, "n_annotators": 4}, rows=1004).splitlines()[0])
    Measured on a 12-item sample, 4 annotators: the exported variants have up to 1,004 rows each, so read these figures as the agreement of that sample.
    """
    if not rep:
        return None
    out = []
    if "n_items" in rep:
        n = rep["n_items"]
        who = f"{md_inline(rep.get('n_annotators', '?'))} annotators"
        if isinstance(rows, int) and isinstance(n, int) and n < rows:
            out += [f"Measured on a {n:,}-item sample, {who}: the exported variants have up to {rows:,} rows "
                    "each, so read these figures as the agreement of that sample.", ""]
        else:
            out += [f"Measured on {n:,} items, {who}.", ""]
    ci = rep.get("ci") or {}
    rows = ["| measure | value | 95% interval |", "| --- | ---: | --- |"]
    for key, name in _AGREEMENT:
        if key in rep:
            v = rep[key]
            c = ci.get(key)
            interval = f"[{c[0]:.3f}, {c[1]:.3f}]" if isinstance(c, (list, tuple)) and len(c) == 2 \
                and all(isinstance(x, (int, float)) for x in c) else ""
            rows.append(f"| {name} | {'n/a' if v is None else f'{v:.3f}'} | {interval} |")
    if len(rows) == 2:
        pairs = [(p, v) for p, v in _flatten(rep) if len(p) == 1]
        if not pairs:
            return None
        rows += [f"| {md_inline(p[0])} | {_num(v)} |  |" for p, v in pairs]
    return "\n".join(out + rows)


def romanization_section(infos: dict[str, dict] | None) -> str | None:
    """How romanized variants were made (``variant.json`` of ``builder romanize``).

    >>> print(romanization_section({"hin_Latn": {"tool": "indic-transliteration", "version": "2.3",
    ...                                          "scheme": "iast", "source_variant": "hin_Deva"}}))
    | config | from | tool | version | scheme |
    | --- | --- | --- | --- | --- |
    | `hin_Latn` | `hin_Deva` | indic-transliteration | 2.3 | iast |
    """
    rows = ["| config | from | tool | version | scheme |", "| --- | --- | --- | --- | --- |"]
    for variant, info in sorted((infos or {}).items()):
        if not any(k in info for k in ("tool", "scheme")):
            continue
        origin = next((info[k] for k in ("source_variant", "from", "parent", "source_language") if info.get(k)),
                      "")
        rows.append(f"| {md_code(variant)} | {md_code(origin) if origin else ''} | {md_inline(info.get('tool', ''))} | "
                    f"{md_inline(info.get('version', ''))} | {md_inline(info.get('scheme', ''))} |")
    if len(rows) <= 2:
        return None
    return "\n".join(rows + leftover_lines(infos))


def leftover_lines(infos: dict[str, dict] | None) -> list[str]:
    """One line per romanized variant written with native characters left (``--allow-leftover``, recipe
    ``allow_leftover: true``), with the count its ``variant.json`` records (``native_letters_left``).

    >>> leftover_lines({"asm_Latn": {"scheme": "iso", "native_letters_left": 105}, "hin_Latn": {"scheme": "iso"}})
    ['', '- `asm_Latn` was exported with 105 native-script characters left un-romanized (allowed by `allow_leftover`).']
    """
    out = []
    for variant, info in sorted((infos or {}).items()):
        left = info.get("native_letters_left") if isinstance(info, dict) else None
        if isinstance(left, int) and not isinstance(left, bool) and left > 0:
            out.append(f"- {md_code(variant)} was exported with {left:,} native-script characters left "
                       "un-romanized (allowed by `allow_leftover`).")
    return [""] + out if out else []


#: Outcomes spelled as words (``"status": "passed"``), by the column that counts them.
_WORDS = {"pass": "pass", "passed": "pass", "ok": "pass", "success": "pass", "fail": "FAIL", "failed": "FAIL",
          "error": "FAIL", "warn": "WARN", "warning": "WARN", "skip": "skip", "skipped": "skip"}


def _status(c: dict) -> str | None:
    """The column that counts check ``c``: ``pass``, ``FAIL``, ``WARN`` or ``skip``; None when the report does
    not say. A failed check that does not gate the release (``"gate": false``) is a warning.

    >>> [_status(c) for c in ({"passed": False, "gate": False}, {"status": "Passed"}, {"result": "unclear"})]
    ['WARN', 'pass', None]
    """
    if c.get("skipped"):
        return "skip"
    for key in ("passed", "ok", "status", "result"):
        if key in c:
            v = c[key]
            got = ("pass" if v else "FAIL") if isinstance(v, bool) else _WORDS.get(str(v).strip().lower())
            return "WARN" if got == "FAIL" and not c.get("gate", True) else got
    return None


def qc_section(rep: dict | None, *, failing_allowed: bool = False) -> str | None:
    """Results of ``builder qc`` (``qc_report.json``): verdict, then outcomes per check.

    Checks run once per variant, so the table counts outcomes per check over
    the variants; failed checks are listed with their variant and reason.

    >>> print(qc_section({"passed": True, "checks": [
    ...     {"variant": "hin_Deva", "check": "leakage", "passed": True, "gate": True},
    ...     {"variant": "eng_Latn", "check": "leakage", "passed": True, "gate": True}]}))
    Gate: **passed**.
    <BLANKLINE>
    | check | pass | FAIL | WARN | skip |
    | --- | ---: | ---: | ---: | ---: |
    | leakage | 2 | 0 | 0 | 0 |
    """
    if not rep:
        return None
    out = []
    if isinstance(rep.get("passed"), bool):
        out += [f"Gate: **{'passed' if rep['passed'] else 'FAILED'}**.", ""]
        if failing_allowed and not rep["passed"]:
            out += ["This release was exported although the gate failed (`builder release "
                    "--allow-failing-gate`); read the failed checks below before using it.", ""]
    checks = rep.get("checks")
    if isinstance(checks, dict):
        checks = [dict(v, check=k) if isinstance(v, dict) else {"check": k, "passed": v} for k, v in checks.items()]
    table: dict[str, dict[str, int]] = {}
    failed, unread = [], []
    for c in checks or []:
        if not isinstance(c, dict):
            unread.append(f"- {md_code(str(c))}")
            continue
        name = str(next((c[k] for k in ("check", "name", "id") if k in c), "?"))
        st = _status(c)
        row = table.setdefault(name, {"pass": 0, "FAIL": 0, "WARN": 0, "skip": 0})
        if st is None:  # listed below, not left out of the counts unsaid
            unread.append(f"- {md_code(name)} on {md_code(c.get('variant', '?'))}")
            continue
        row[st] += 1
        if st in ("FAIL", "WARN"):
            why = " ".join(str(c.get("reason") or c.get("detail") or "").split())
            failed.append(f"- {st} {md_code(name)} on {md_code(c.get('variant', '?'))}"
                          + (f": {md_inline(why)}" if why else ""))
    if table:
        out += ["| check | pass | FAIL | WARN | skip |", "| --- | ---: | ---: | ---: | ---: |"]
        out += [f"| {md_inline(n)} | {r['pass']} | {r['FAIL']} | {r['WARN']} | {r['skip']} |"
                for n, r in table.items()]
    if failed:
        out += ["", "Failed checks:", ""] + failed
    if unread:
        out += ["", "Checks whose report gives no outcome this card can read (counted in no column):", ""] + unread
    skipped = _skipped(checks or [])
    if skipped:
        out += ["", "Skipped checks (they could not run, so they neither pass nor fail the data):", ""] + skipped
    return "\n".join(out).strip("\n") or None


def _skipped(checks: list) -> list[str]:
    """One line per skipped check and reason, with the variants it was skipped on."""
    groups: dict[tuple[str, str], list[str]] = {}
    for c in checks:
        if isinstance(c, dict) and c.get("skipped"):
            name = str(next((c[k] for k in ("check", "name", "id") if k in c), "?"))
            why = " ".join(str(c.get("detail") or c.get("reason") or "no reason given").split())
            groups.setdefault((name, why), []).append(str(c.get("variant", "?")))
    out = []
    for (name, why), variants in sorted(groups.items()):
        shown = ", ".join(map(md_code, variants[:6])) + (f" and {len(variants) - 6} more" if len(variants) > 6 else "")
        out.append(f"- {md_code(name)} on {shown}: {md_inline(why)}.")
    return out


def warnings_section(infos: dict[str, dict] | None) -> str | None:
    """The warnings the variants' own checks gave (``variant.json`` ``checks`` with status ``warning``:
    ``builder extend``'s length outliers, duplicates), one line per variant and check with the records it
    flagged; None when there is none.

    >>> print(warnings_section({"nqo_Nkoo": {"checks": {"length_outliers": {"status": "warning", "count": 1,
    ...     "message": "1 lines flagged", "items": [{"index_id": 556, "z": -3.84}]}}}}))
    - `nqo_Nkoo`, `length_outliers`: 1 lines flagged (index_id 556, z = -3.84).
    """
    out = []
    for variant, info in sorted((infos or {}).items()):
        checks = info.get("checks") if isinstance(info, dict) else None
        for name, c in sorted((checks or {}).items()) if isinstance(checks, dict) else []:
            if not isinstance(c, dict) or c.get("status") != "warning":
                continue
            items = [i for i in c.get("items") or [] if isinstance(i, dict)]
            flagged = "; ".join(", ".join(f"{k} {v}" if k not in ("z", "score") else f"{k} = {v}" for k, v in i.items())
                                for i in items[:10])
            more = f" and {len(items) - 10} more" if len(items) > 10 else ""
            message = " ".join(str(c.get("message") or f"{c.get('count', '?')} flagged").split())
            out.append(f"- {md_code(variant)}, {md_code(name)}: {md_inline(message)}"
                       + (f" ({md_inline(flagged)}{more})" if flagged else "") + ".")
    return "\n".join(out) or None


def baselines_section(results: dict | None) -> str | None:
    """Baseline accuracy per variant (``results.json`` of ``builder evaluate baselines``), with 95% intervals.

    >>> print(baselines_section({"results": [{"variant": "eng_Latn", "baseline": "majority", "split": "test",
    ...     "accuracy": 0.25, "ci_low": 0.2, "ci_high": 0.31, "n": 204}]}))
    Accuracy on the test split, with 95% confidence intervals.
    <BLANKLINE>
    | variant | majority |
    | --- | ---: |
    | `eng_Latn` | 25.0 [20.0, 31.0] (n=204) |
    """
    rows = [r for r in (results or {}).get("results", []) if isinstance(r, dict)]
    if not rows:
        return None
    names = list(dict.fromkeys(r["baseline"] for r in rows))
    splits = sorted({str(r.get("split")) for r in rows if r.get("split")})
    cells: dict[str, dict[str, str]] = {}
    for r in rows:
        cell = f"{100 * r['accuracy']:.1f}"
        if r.get("ci_low") is not None and r.get("ci_high") is not None:
            cell += f" [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        cells.setdefault(r["variant"], {})[r["baseline"]] = cell + f" (n={md_inline(r.get('n', '?'))})"
    out = [f"Accuracy on the {', '.join(md_inline(s) for s in splits) or 'scored'} split, with 95% confidence "
           "intervals.", "",
           "| variant | " + " | ".join(md_inline(n) for n in names) + " |",
           "| --- | " + " | ".join("---:" for _ in names) + " |"]
    out += [f"| {md_code(v)} | " + " | ".join(cells[v].get(n, "") for n in names) + " |"
            for v in sorted(cells)]
    return "\n".join(out)


def models_section(results: dict | None) -> str | None:
    """A language model's accuracy per variant through lm-eval (``results.json`` of ``builder evaluate lm``):
    which model, which items, its accuracy with its 95% interval and lm-eval's ``acc`` beside it.

    >>> print(models_section({"settings": {"model": "SmolLM2", "limit": 4, "num_fewshot": None,
    ...     "selection": "4 test items per task, round-robin over the labels"},
    ...     "results": [{"variant": "eng_Latn", "accuracy": 0.5, "ci_low": 0.15, "ci_high": 0.85, "n": 4,
    ...                  "correct": 2, "lm_eval_task": "s_eng_Latn", "lm_eval_acc": 0.5}]}))
    `SmolLM2` on this export's lm-eval tasks (`lm_eval/`), 0-shot, the test split: 4 test items per task, round-robin over the labels. Accuracy is lm-eval's `acc` (the choice of highest log-likelihood), with 95% confidence intervals; a limited run scores a sample, so read the intervals.
    <BLANKLINE>
    | variant | task | accuracy | correct / n |
    | --- | --- | ---: | ---: |
    | `eng_Latn` | `s_eng_Latn` | 50.0 [15.0, 85.0] | 2 / 4 |
    """
    rows = [r for r in (results or {}).get("results", []) if isinstance(r, dict)]
    if not rows:
        return None
    s = (results or {}).get("settings") or {}
    shots = s.get("num_fewshot") or 0
    out = [f"{md_code(s.get('model', 'model'))} on this export's lm-eval tasks (`lm_eval/`), {md_inline(shots)}-shot, "
           f"the test split: {md_inline(s.get('selection') or 'every test item')}. Accuracy is lm-eval's `acc` "
           "(the choice of highest log-likelihood), with 95% confidence intervals"
           + ("; a limited run scores a sample, so read the intervals." if s.get("limit") else "."), "",
           "| variant | task | accuracy | correct / n |", "| --- | --- | ---: | ---: |"]
    for r in sorted(rows, key=lambda r: str(r.get("variant"))):
        cell = f"{100 * r['accuracy']:.1f}"
        if r.get("ci_low") is not None and r.get("ci_high") is not None:
            cell += f" [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        out.append(f"| {md_code(r['variant'])} | {md_code(r.get('lm_eval_task') or '')} | {cell} | "
                   f"{md_inline(r.get('correct', '?'))} / {md_inline(r.get('n', '?'))} |")
    return "\n".join(out)


def intended_use_section(ctx) -> str:
    """Intended use and restrictions, from the splits and their terms."""
    splits = sorted({s.split for s in ctx.splits})
    o = ctx.overall
    out = []
    if splits == ["test"]:
        out.append("- **Test set only**: this dataset is for evaluation. Do not train or tune on it; doing so "
                   "contaminates the benchmark.")
    elif "test" in splits:
        dev = next((s for s in ("dev", "validation") if s in splits), None)  # its name in this layout
        selection = f" (and `{dev}` for model selection)" if dev else ""
        out.append("- The `test` split is for evaluation only: do not train or tune on it. Use `train`"
                   f"{selection} for fitting.")
    elif ctx.kind == "mc":
        out.append("- Training and development data for multiple-choice reading comprehension (fine-tuning, "
                   "or few-shot examples); evaluate on a separate test set.")
    if not o.commercial_use:
        nc = sorted({s.license for s in o.sources if not _commercial(s.license)})
        out.append(f"- **Not for commercial use.** Records under {', '.join(map(md_inline, nc))} forbid it; "
                   "this applies to "
                   "every split that contains them (see the table above).")
    else:
        out.append("- Commercial use is permitted under the terms above.")
    if o.research_only:
        out.append("- Research use only, as the terms of some sources require.")
    if o.share_alike:
        out.append(f"- Share-alike: datasets derived from this one must be shared under the same terms "
                   f"({md_inline(o.terms)}), with the attribution in `ATTRIBUTION.md`.")
    if ctx.override:
        out.append("- Released under the recipe's license override (see above); check that your use fits every "
                   "source's own terms.")
    return "\n".join(out)


def _commercial(license_id: str) -> bool:
    from schemas.license_registry import get_license

    return get_license(license_id).commercial_use
