#!/usr/bin/env bash
# Declare the license, source and citation of a variant folder with `builder describe`, carry them
# into a new variant with `builder extend`, and see the credit in the export (ATTRIBUTION.md, card).
# Runs on the shipped SIB-200 sample, from the repository root:  bash examples/describe-variant.sh [OUT]
set -euo pipefail
out="${1:-out/describe-example}"
sib=tests/data/sib200
rm -rf "$out" && mkdir -p "$out"

# 1. A copy of the English SIB-200 annotation: it has train/dev/test.tsv but no variant.json.
cp -r "$sib/eng" "$out/eng"
builder describe "$out/eng"                      # license / source_name / citation: (not declared)

# 2. Declare what it is; the license id is checked against the registry, as `builder export` does.
cat > "$out/sib200.bib" <<'BIB'
@misc{adelani2023sib200,
  title = {{SIB}-200: A Simple, Inclusive, and Big Evaluation Dataset for Topic Classification in 200+ Languages and Dialects},
  author = {Adelani, David Ifeoluwa and Liu, Hannah and Shen, Xiaoyu and Vassilyev, Nikita and Alabi, Jesujoba O. and Mao, Yanke and Gao, Haonan and Lee, En-Shiun Annie},
  year = {2023},
  eprint = {2309.07445},
  archivePrefix = {arXiv}
}
BIB
builder describe "$out/eng" --license CC-BY-SA-4.0 --source-name SIB-200 --citation-file "$out/sib200.bib"

# 3. A new variant from the FLORES-200 N'Ko lines carries source name, license and citation.
builder extend --source "$out/eng" \
  --parallel "$sib/flores-raw/nqo_Nkoo.dev" --parallel "$sib/flores-raw/nqo_Nkoo.devtest" \
  --variant nqo_Nkoo --out "$out/built"
builder describe "$out/built/nqo_Nkoo"           # source_name: SIB-200, license carried from eng/variant.json

# 4. The export credits SIB-200 (ATTRIBUTION.md) and cites SIB-200 and FLORES-200 (README.md card).
builder export "$out/built" --out "$out/export"
grep -A2 '^## SIB-200' "$out/export/ATTRIBUTION.md"
sed -n '/^## Citation/,$p' "$out/export/README.md"
