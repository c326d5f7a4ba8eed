"""``builder annotate``: agreement, adjudication, label curation and splits for topic labels.

Each subcommand reads its input, validates it at the door and writes its
outputs as one folder that replaces ``--out DIR`` whole and atomically (an
existing ``DIR`` must be an earlier output of the same subcommand and hold
none of its inputs). Exit codes: 0 success, 1 bad input, 2 usage error or an
output that cannot be written.
"""
from __future__ import annotations

from pathlib import Path

import click

from .common import OutputFolder, check_output, on_error_option, output_folder, pass_app


def _annotation_options(f):
    f = on_error_option(f)
    f = click.option("--min-ratings", type=click.IntRange(1), default=2, show_default=True,
                     help="Items with fewer ratings are bad input (or skipped and listed with --on-error skip).")(f)
    f = click.option("--labels", "labels_file", type=click.Path(dir_okay=False, path_type=Path),
                     help="Allowed labels, one per line (like SIB-200's labels.txt).")(f)
    f = click.option("--format", "fmt", type=click.Choice(["auto", "long", "wide"]), default="auto",
                     show_default=True,
                     help="long: item_id, annotator, label rows; wide: one column per annotator.")(f)
    return f


def _read(path, fmt, labels_file, min_ratings, on_error):
    from annotation.importer import read_annotations, read_labels

    labels = read_labels(labels_file) if labels_file else None
    return read_annotations(path, format=fmt, labels=labels, min_ratings=min_ratings, on_error=on_error)


def _report_skips(app, ann) -> None:
    for reason, n in sorted(ann.skipped.items()):
        ids = ann.skipped_ids.get(reason, [])
        shown = ", ".join(ids[:5]) + (" ..." if len(ids) > 5 else "")
        app.info(f"skipped {n} ({reason}): {shown}")


def _out_option(f):
    return click.option("--out", "out_dir", required=True, type=OutputFolder(),
                        help="Output folder, replaced as a whole (an existing one must be an earlier output of "
                             "the same subcommand).")(f)


@click.group()
def annotate():
    """Topic-label annotation: agreement, adjudication, curation, splits.

    A typical run: `agreement` on the raw export, `adjudicate` to get majority
    labels and a sheet of conflicts for the lead annotator, `adjudicate --sheet`
    to merge the filled sheet, `curate` with a recipe, `split`.
    """


@annotate.command()
@click.argument("annotations", type=click.Path(path_type=Path))
@_annotation_options
@click.option("--n-boot", type=click.IntRange(0), default=1000, show_default=True,
              help="Bootstrap resamples over items (0: no intervals).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--ci-level", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Coverage of the confidence intervals.")
@click.option("--top-confusions", type=click.IntRange(0), default=10, show_default=True,
              help="How many confused label pairs to list.")
@click.option("--no-plot", is_flag=True, help="Do not draw agreement_matrix.png.")
@_out_option
@pass_app
def agreement(app, annotations, fmt, labels_file, min_ratings, on_error, n_boot, seed, ci_level,
              top_confusions, no_plot, out_dir):
    """Agreement report: Fleiss' kappa, Krippendorff's alpha, Cohen's kappa, Gwet's AC1.

    Writes DIR/agreement.json, DIR/agreement.md and DIR/agreement_matrix.png.
    """
    from annotation.agreement import agreement_report
    from annotation.report import write_report

    inputs = [annotations, labels_file]
    check_output(out_dir, "annotate agreement", inputs=inputs, legacy="agreement.json")
    ann = _read(annotations, fmt, labels_file, min_ratings, on_error)
    _report_skips(app, ann)
    rep = agreement_report(ann, n_resamples=n_boot, seed=seed, level=ci_level, top_confusions=top_confusions)
    with output_folder(out_dir, "annotate agreement", inputs=inputs, legacy="agreement.json") as stage:
        write_report(rep, stage, plot=not no_plot)

    def f(x):
        return "n/a" if x is None else f"{x:.3f}"

    click.echo(f"{rep['n_items']} items, {rep['n_annotators']} annotators: fleiss_kappa {f(rep['fleiss_kappa'])}"
               f", krippendorff_alpha {f(rep['krippendorff_alpha'])}, mean_cohen_kappa "
               f"{f(rep['mean_cohen_kappa'])}, gwet_ac1 {f(rep['gwet_ac1'])} -> {out_dir / 'agreement.json'}")
    if rep.get("fleiss_kappa_reason"):
        app.info(f"note: fleiss_kappa not reported: {rep['fleiss_kappa_reason']}")


@annotate.command()
@click.argument("annotations", type=click.Path(path_type=Path))
@_annotation_options
@click.option("--policy", type=click.Choice(["sib200", "plurality", "absolute", "unanimous"]),
              default="sib200", show_default=True,
              help="sib200: >= 2 votes and a strict plurality (a 2-2 split is a conflict).")
@click.option("--sheet", type=click.Path(dir_okay=False, path_type=Path),
              help="The lead's filled-in adjudication sheet to merge (column lead_label).")
@_out_option
@pass_app
def adjudicate(app, annotations, fmt, labels_file, min_ratings, on_error, policy, sheet, out_dir):
    """Majority vote; conflicts go to an adjudication sheet for the lead annotator.

    Without --sheet: writes DIR/decisions.csv, DIR/adjudication_sheet.csv (the
    conflicts, with an empty lead_label column) and DIR/adjudication.json. With
    --sheet FILLED.csv: merges the lead's labels (rule `adjudicated`); items
    left empty stay `unresolved` and are listed in DIR/unresolved_sheet.csv.
    """
    from annotation.adjudicate import decide, merge_sheet, rule_counts, write_decisions, write_sheet
    from schemas.io import write_json_atomic

    inputs = [annotations, labels_file, sheet]
    check_output(out_dir, "annotate adjudicate", inputs=inputs, legacy="adjudication.json")
    ann = _read(annotations, fmt, labels_file, min_ratings, on_error)
    _report_skips(app, ann)
    decisions = decide(ann, policy)
    conflicts = sum(1 for d in decisions if d.rule == "unresolved")
    sheet_stats = None
    if sheet is not None:
        decisions, sheet_stats = merge_sheet(decisions, sheet, ann.labels)
        sheet_stats = {"file": sheet.name, **sheet_stats}
    sheet_name = "unresolved_sheet.csv" if sheet is not None else "adjudication_sheet.csv"
    rules = rule_counts(decisions)
    summary = {
        "source": annotations.name, "policy": policy, "n_items": ann.n_items,
        "n_annotators": len(ann.annotators), "conflicts": conflicts, "rules": rules,
        "sheet": sheet_stats, "sheet_written": sheet_name,
        "unresolved_ids": [d.item_id for d in decisions if d.rule == "unresolved"],
        "skipped": dict(ann.skipped), "skipped_ids": {k: list(v) for k, v in ann.skipped_ids.items()},
    }
    with output_folder(out_dir, "annotate adjudicate", inputs=inputs, legacy="adjudication.json") as stage:
        write_decisions(stage / "decisions.csv", decisions, ann.texts)
        write_sheet(stage / sheet_name, ann, decisions)
        write_json_atomic(stage / "adjudication.json", summary)
    click.echo(f"{ann.n_items} items ({policy}): {rules['majority']} majority, {rules['adjudicated']} "
               f"adjudicated, {rules['unresolved']} unresolved -> {out_dir / sheet_name}")


@annotate.command()
@click.argument("labelled", type=click.Path(path_type=Path))
@click.option("--recipe", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Curation recipe (YAML list of steps), e.g. examples/sib200-curation.yaml.")
@_out_option
@pass_app
def curate(app, labelled, recipe, out_dir):
    """Curate the label set by a recipe; every step is logged with counts.

    LABELLED is decisions.csv, a SIB-200 TSV, or a folder of train/dev/test.tsv.
    Writes DIR/curated.tsv (SIB-200 layout), DIR/labels.txt and DIR/curation_log.json.
    """
    from annotation.curate import curate as run_curate
    from annotation.curate import label_order, load_recipe
    from annotation.labelled import read_labelled
    from schemas.io import write_json_atomic, write_sib_tsv, write_text_atomic

    inputs = [labelled, recipe]
    check_output(out_dir, "annotate curate", inputs=inputs, legacy="curation_log.json")
    steps = load_recipe(recipe)
    items = read_labelled(labelled)
    kept, log = run_curate(items, steps)
    labels = label_order(kept)
    with output_folder(out_dir, "annotate curate", inputs=inputs, legacy="curation_log.json") as stage:
        write_sib_tsv(stage / "curated.tsv",
                      [{"index_id": i.item_id, "category": i.label, "text": i.text} for i in kept])
        write_text_atomic(stage / "labels.txt", "".join(f"{lab}\n" for lab in labels))
        write_json_atomic(stage / "curation_log.json", {
            "input": labelled.name, "recipe": recipe.name, "items_in": len(items), "items_out": len(kept),
            "labels": {lab: sum(1 for i in kept if i.label == lab) for lab in labels}, "steps": log})
    for entry in log:
        app.info(f"{entry['step']}: {entry['items_before']} -> {entry['items_after']} items")
    click.echo(f"{len(items)} items -> {len(kept)} items, {len(labels)} labels -> {out_dir / 'curated.tsv'}")


def _ratios(ctx, param, value):
    from annotation.splits import check_ratios
    from schemas.errors import UsageError

    try:
        return check_ratios([float(x) for x in value.split(",")])
    except (ValueError, UsageError) as err:
        raise click.BadParameter(str(err) if isinstance(err, UsageError) else
                                 f"expected three comma-separated numbers, found {value!r}") from None


@annotate.command()
@click.argument("labelled", type=click.Path(path_type=Path))
@click.option("--ratios", default="0.7,0.1,0.2", show_default=True, callback=_ratios,
              help="train,dev,test shares (SIB-200 used 70/10/20).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the shuffle.")
@_out_option
@pass_app
def split(app, labelled, ratios, seed, out_dir):
    """Stratified, seeded train/dev/test split, grouped by item id.

    Writes DIR/{train,dev,test}.tsv (SIB-200 layout: index_id, category, text),
    the same as .parquet, DIR/labels.txt and DIR/split.json.
    """
    from annotation.curate import label_order
    from annotation.labelled import read_labelled
    from annotation.splits import require_labels, split_items, split_summary, write_splits

    check_output(out_dir, "annotate split", inputs=[labelled], legacy="split.json")
    items = read_labelled(labelled)
    require_labels(items)
    parts = split_items(items, ratios, seed)
    info = split_summary(parts, ratios, seed)
    info["input"] = labelled.name
    write_splits(parts, out_dir, labels=label_order(items), info=info)
    counts = info["counts"]
    click.echo(f"{info['n_items']} items -> train {counts['train']}, dev {counts['dev']}, test {counts['test']}"
               f" -> {out_dir}")
