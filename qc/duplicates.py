"""Check ``duplicates``: exact and near-duplicate passages and questions.

Exact duplicates share their normalised text (:func:`qc.textnorm.normalize`)
under different ids. Near-duplicate passages (and topic texts) are found with
MinHash over character 5-shingles and locality-sensitive hashing in bands
(Leskovec et al., *Mining of Massive Datasets*, ch. 3): texts that agree on
all rows of some band become candidates, and a candidate pair counts when its
exact shingle Jaccard is at least ``near_jaccard``. The work is linear in the
number of texts (plus the candidate pairs), not quadratic. A near-duplicate
question only counts under the same passage (many passages legitimately ask
"What is the main idea?"), so questions are compared pairwise within their
passage. Everything is within one split; across splits is ``leakage``
(which runs the same search with ``groups``: only pairs of two splits), and
texts with two labels are ``label_conflict``'s. The near pairs found are
named in the result (``near_named``: ids, Jaccard, shortened texts, closest
first) even when their share is under ``max_near_share``.

>>> pairs = near_duplicate_pairs(["the cat sat on the mat today", "the cat sat on the mat today!",
...                               "a completely different sentence"], threshold=0.8, k=5, num_perm=32, bands=8)
>>> pairs
[(0, 1, 0.96)]
"""
from __future__ import annotations

from collections import OrderedDict, defaultdict

import numpy as np
import pandas as pd

from schemas.names import shorten

from .result import CheckResult, VariantData, skipped
from .textnorm import char_shingles_many, normalize

NAME = "duplicates"
KINDS = ("mc", "topic")
NAMED = 10  # near pairs named in a result (closest first), with their texts shortened
_P = np.random.default_rng(20130).integers(1, 2**63, size=(2, 1024), dtype=np.uint64) | np.uint64(1)


def minhash(shingles: list[np.ndarray], num_perm: int, chunk: int | None = None) -> np.ndarray:
    """MinHash signatures, shape ``(len(shingles), num_perm)``, with multiply-shift hashing.

    Texts are processed in chunks of about ``chunk`` shingles: one vectorised
    hash of all their shingles, then a segmented minimum (``np.minimum.reduceat``).
    By default a chunk's hashes fill about 2 MB (``num_perm x chunk`` uint64s: 4,096
    shingles at 64 permutations), which stays in cache: a chunk twice as large took
    1.5x as long. The signatures do not depend on ``chunk``.
    """
    if chunk is None:
        chunk = max(1, (1 << 18) // max(num_perm, 1))
    a, b = _P[0, :num_perm], _P[1, :num_perm]
    sig = np.full((len(shingles), num_perm), np.iinfo(np.uint64).max, dtype=np.uint64)
    sizes = np.array([len(s) for s in shingles])
    start = 0
    while start < len(shingles):
        stop, total = start, 0
        while stop < len(shingles) and (total == 0 or total + sizes[stop] <= chunk):
            total += sizes[stop]
            stop += 1
        idx = [i for i in range(start, stop) if sizes[i]]
        if idx:
            flat = np.concatenate([shingles[i] for i in idx])
            hashed = np.multiply.outer(a, flat)  # one row per permutation: the reductions run along rows
            hashed += b[:, None]
            hashed >>= np.uint64(16)
            offsets = np.concatenate(([0], np.cumsum(sizes[idx])[:-1]))
            sig[idx] = np.minimum.reduceat(hashed, offsets, axis=1).T
        start = stop
    return sig


#: texts whose shingles and MinHash signature are kept (:func:`signatures`): a variant's texts, each
#: about 2 kB
_KEPT = 1 << 13
_KEPT_PERM = 64  # signatures are computed this wide at least: a narrower one is its first columns
_signed: OrderedDict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = OrderedDict()


def signatures(texts: list[str], k: int, num_perm: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The ``k``-character shingles of each text and their MinHash signatures (``num_perm`` columns).

    The duplicates, leakage and label-conflict checks each search a variant's
    texts for near pairs, mostly the same texts; each text is shingled and
    signed once and remembered (the last :data:`_KEPT` texts). Permutation
    ``p`` uses the same hash whatever ``num_perm`` is, so a signature of 32
    permutations is the first 32 columns of one of 64: the result is what
    :func:`minhash` of :func:`~qc.textnorm.char_shingles_many` gives.

    >>> sh, sig = signatures(["the cat sat", "a dog"], 5, 32)
    >>> ref = char_shingles_many(["the cat sat", "a dog"], 5)
    >>> bool((sig == minhash(ref, 32)).all()), [len(x) for x in sh] == [len(x) for x in ref]
    (True, True)
    """
    missing = list(dict.fromkeys(t for t in texts if (hit := _signed.get((k, t))) is None
                                 or hit[1].shape[0] < num_perm))
    if missing:
        width = max(num_perm, _KEPT_PERM)
        fresh = char_shingles_many(missing, k)
        for t, shingles, sig in zip(missing, fresh, minhash(fresh, width)):
            _signed[(k, t)] = (shingles, sig)
    got = []
    for t in texts:
        _signed.move_to_end((k, t))
        got.append(_signed[(k, t)])
    while len(_signed) > max(_KEPT, len(texts)):
        _signed.popitem(last=False)
    sig = np.stack([g[1][:num_perm] for g in got]) if got else np.zeros((0, num_perm), dtype=np.uint64)
    return [g[0] for g in got], sig


def near_duplicate_pairs(texts: list[str], *, threshold: float, k: int, num_perm: int, bands: int,
                         normalized: bool = False, groups: list | None = None) -> list[tuple[int, int, float]]:
    """Pairs ``(i, j, jaccard)`` of distinct texts whose shingle Jaccard is at least ``threshold``.

    ``k``, ``num_perm`` and ``bands`` are a check's ``shingle``, ``num_perm`` and ``bands`` (their one
    owner is the qc config). With ``groups`` (one label per text, e.g. its split) only pairs of
    different groups are returned, and texts equal after normalisation are
    left out (they are exact matches, not near ones). One signature per text serves every pair of groups.

    >>> near_duplicate_pairs(["the cat sat on the mat today", "a dog", "the cat sat on the mat today!"],
    ...                      groups=["train", "train", "test"], threshold=0.8, k=5, num_perm=32, bands=8)
    [(0, 2, 0.96)]
    """
    pool = [t if normalized else normalize(t) for t in texts]
    sh, sig = signatures(pool, k, num_perm)
    rows = num_perm // bands
    live = np.flatnonzero([len(x) > 0 for x in sh])
    codes = None if groups is None else pd.factorize(pd.Series(list(groups), dtype=object))[0]
    candidates: set[tuple[int, int]] = set()
    for band in range(bands):
        block = np.ascontiguousarray(sig[live, band * rows:(band + 1) * rows])
        keys = block.view(np.dtype((np.void, block.dtype.itemsize * rows))).ravel()
        _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        inverse = inverse.ravel()
        # a huge bucket means a degenerate text; the exact check catches it
        busy = np.flatnonzero((counts[inverse] > 1) & (counts[inverse] <= 50))
        if not len(busy):
            continue
        order = busy[np.argsort(inverse[busy], kind="stable")]
        for members in np.split(live[order], np.flatnonzero(np.diff(inverse[order])) + 1):
            members = members.tolist()
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    a, b = members[x], members[y]
                    if codes is None or codes[a] != codes[b]:
                        candidates.add((a, b))
    out = []
    for i, j in sorted(candidates):
        if codes is not None and pool[i] == pool[j]:
            continue
        inter = len(np.intersect1d(sh[i], sh[j], assume_unique=True))
        jac = inter / (len(sh[i]) + len(sh[j]) - inter)
        if jac >= threshold:
            out.append((i, j, round(float(jac), 4)))
    return out


def around_difference(a: str, b: str, width: int = 30) -> tuple[str, str]:
    """``a`` and ``b`` cut to ``width`` characters from a little before where they first differ.

    >>> around_difference("the same start, then one word", "the same start, then two words", 12)
    ('…hen one word', '…hen two word…')
    """
    a, b = " ".join(str(a).split()), " ".join(str(b).split())
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, same - width // 3)
    cut = [t[start:start + width] for t in (a, b)]
    return tuple(("…" if start else "") + c + ("…" if start + width < len(t) else "")
                 for c, t in zip(cut, (a, b)))


def _units(data: VariantData) -> dict[str, pd.DataFrame]:
    """The texts to compare (normalised): id, split and text, one row per unit; a question's row also has its
    ``passage``, in a column of its own (a separator inside one string would cut a passage that holds it)."""
    frame = data.combined
    if data.kind == "topic":
        ids = frame["index_id"].astype(str) if "index_id" in frame else pd.Series(range(len(frame))).astype(str)
        return {"texts": pd.DataFrame({"id": frame["split"] + ":" + ids, "split": frame["split"],
                                       "text": frame["text"].astype(str).map(normalize)})}
    pid = frame["passage_id"].astype(str) if "passage_id" in frame else frame["passage"].astype(str)
    qid = frame["question_id"].astype(str) if "question_id" in frame else pd.Series(range(len(frame))).astype(str)
    passage_norm = frame["passage"].astype(str).map(normalize)
    passages = pd.DataFrame({"id": frame["split"] + ":" + pid, "split": frame["split"], "text": passage_norm})
    passages = passages.drop_duplicates("id").reset_index(drop=True)
    item = frame["question"].astype(str)
    for c in ("answer1", "answer2", "answer3", "answer4"):
        item = item + " | " + frame[c].astype(str)
    questions = pd.DataFrame({"id": frame["split"] + ":" + pid + "/" + qid, "split": frame["split"],
                              "text": item.map(normalize), "passage": passage_norm})
    return {"passages": passages, "questions": questions}


def _within_groups(texts: list[str], groups: list[str], params: dict) -> list[tuple[int, int, float]]:
    """Near-duplicate pairs among texts of the same group (a passage has only a few questions)."""
    by_group: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        by_group[g].append(i)
    k, out = params["shingle"], []
    small = [i for members in by_group.values() if 2 <= len(members) <= 20 for i in members]
    shingles = dict(zip(small, char_shingles_many([texts[i] for i in small], k)))
    for members in by_group.values():
        if len(members) < 2:
            continue
        if len(members) > 20:  # unusually many questions on one passage: LSH within the group
            sub = near_duplicate_pairs([texts[i] for i in members], threshold=params["near_jaccard"], k=k,
                                       num_perm=params["num_perm"], bands=params["bands"], normalized=True)
            out += [(members[a], members[b], j) for a, b, j in sub]
            continue
        sh = shingles
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                a, b = sh[members[x]], sh[members[y]]
                inter = len(np.intersect1d(a, b, assume_unique=True))
                jac = inter / (len(a) + len(b) - inter)
                if jac >= params["near_jaccard"]:
                    out.append((members[x], members[y], round(float(jac), 4)))
    return out


def _scan(table: pd.DataFrame, unit: str, params: dict) -> dict:
    """Exact groups and near pairs among the texts of one split."""
    if unit == "questions":  # a question is a duplicate only of one under the same passage
        keys = pd.MultiIndex.from_arrays([table[c].to_numpy(dtype=object) for c in ("passage", "text")])
        codes, unique = keys.factorize(sort=True)
        distinct = list(unique.get_level_values(1))
        pairs = _within_groups(distinct, list(unique.get_level_values(0)), params)
    else:
        codes, unique = pd.factorize(table["text"].to_numpy(dtype=object), sort=True)
        distinct = list(unique)
        pairs = near_duplicate_pairs(distinct, threshold=params["near_jaccard"], k=params["shingle"],
                                     num_perm=params["num_perm"], bands=params["bands"], normalized=True)
    members = _members(codes, table["id"].to_numpy(dtype=object), len(distinct))
    exact = [g for g in members if len(g) > 1]
    named = [{"ids": [members[i][0], members[j][0]], "jaccard": jac,
              "texts": [shorten(distinct[i]), shorten(distinct[j])]}
             for i, j, jac in sorted(pairs, key=lambda p: -p[2])[:NAMED]]
    return {"exact": int(sum(len(g) - 1 for g in exact)), "distinct": len(distinct), "pairs": len(pairs),
            "involved": len({i for p in pairs for i in p[:2]}), "exact_groups": [g[:3] for g in exact[:3]],
            "near_examples": [[members[i][0], members[j][0]] for i, j, _ in pairs[:3]], "near_named": named}


def _members(codes: np.ndarray, ids: np.ndarray, n: int) -> list[list]:
    """The ids of each group ``0..n-1`` in table order (what ``groupby(...).agg(list)`` gives)."""
    order = np.argsort(codes, kind="stable")
    return [part.tolist() for part in np.split(ids[order], np.cumsum(np.bincount(codes, minlength=n))[:-1])]


def _ids(groups: list[list]) -> str:
    """``a = b; c = d = e``: the ids of each group, the first three groups."""
    return "; ".join(" = ".join(map(str, g)) for g in groups[:3])


def run(data: VariantData, params: dict) -> list[CheckResult]:
    """Duplicates within each split (texts shared across splits are the ``leakage`` check's).

    A failure on exact duplicates reports their count against ``max_exact``
    (not the near-duplicate share) and the ids of the first duplicate groups.
    """
    if len(data.combined) == 0:
        return [skipped(data.variant, NAME, "no rows")]
    out = []
    for unit, table in _units(data).items():
        split_of = table["split"]  # not cut from the id: an id may hold a colon
        scans = [_scan(table[split_of == s], unit, params) for s in pd.unique(split_of)]
        n_exact = sum(x["exact"] for x in scans)
        distinct = sum(x["distinct"] for x in scans)
        n_pairs = sum(x["pairs"] for x in scans)
        share = sum(x["involved"] for x in scans) / distinct  # a unit's table has rows: distinct >= 1
        exact_groups = [g for x in scans for g in x["exact_groups"]][:3]
        near = [g for x in scans for g in x["near_examples"]][:3]
        named = sorted((n for x in scans for n in x["near_named"]), key=lambda n: -n["jaccard"])[:NAMED]
        exact_fails = n_exact > params["max_exact"]
        passed = not exact_fails and share <= params["max_near_share"]
        reason = None if passed else ("exact_duplicate" if exact_fails else "near_duplicate")
        detail = f"{n_exact} exact duplicate(s) (max {params['max_exact']})"
        if exact_groups:
            detail += f", first: {_ids(exact_groups)}"
        detail += (f"; {n_pairs} near-duplicate pair(s) at Jaccard >= {params['near_jaccard']} involving "
                   f"{share:.1%} of {distinct} distinct {unit} (max {params['max_near_share']:.0%}, within splits)")
        if named:  # named even under the allowance: each is a pair to look at
            detail += ", closest: " + "; ".join(f"{a} ~ {b} ({n['jaccard']:.2f})" for n in named[:3]
                                                for a, b in [n["ids"]])
        value, threshold = (n_exact, params["max_exact"]) if exact_fails else (share, params["max_near_share"])
        out.append(CheckResult(
            data.variant, f"{NAME}:{unit}", passed, value=value, threshold=threshold, reason=reason, detail=detail,
            extra={"exact": n_exact, "near_pairs": n_pairs, "distinct": distinct, "near_share": share,
                   "examples": exact_groups + near, "exact_examples": exact_groups, "near_examples": near,
                   "near_named": named}))
    return out
