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

from .common import OutputFolder, on_error_option, pass_app


def _annotation_options(f):
    f = on_error_option(f)
    f = click.option("--min-ratings", type=click.IntRange(1), default=2, show_default=True,
                     help="Items with fewer ratings are bad input (or skipped and listed with --on-error skip).")(f)
    f = click.option("--labels", "labels_file", type=click.Path(path_type=Path),
                     help="Allowed labels, one per line (like SIB-200's labels.txt).")(f)
    f = click.option("--label-field",
                     help="The Label Studio control (from_name) or Argilla question holding the label, where the "
                          "export has several.")(f)
    f = click.option("--format", "fmt", type=click.Choice(["auto", "long", "wide", "label-studio", "label-studio-min",
                                                           "label-studio-csv", "argilla"]), default="auto",
                     show_default=True,
                     help="long: item_id, annotator, label rows; wide: one column per annotator; label-studio(-min, "
                          "-csv): a Label Studio export; argilla: Argilla v2 records. auto reads the content.")(f)
    return f


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
def agreement(app, annotations, fmt, label_field, labels_file, min_ratings, on_error, n_boot, seed, ci_level,
              top_confusions, no_plot, out_dir):
    """Agreement report: Fleiss' kappa, Krippendorff's alpha, Cohen's kappa, Gwet's AC1.

    Writes DIR/agreement.json, DIR/agreement.md and DIR/agreement_matrix.png.
    """
    from builder.tasks.annotate import AgreementOptions, run_agreement

    result = run_agreement(AgreementOptions(annotations, out_dir, format=fmt, label_field=label_field,
                                            labels=labels_file,
                                            min_ratings=min_ratings, on_error=on_error, n_boot=n_boot, seed=seed,
                                            ci_level=ci_level, top_confusions=top_confusions, plot=not no_plot),
                           app.reporter())
    app.show(result)


@annotate.command()
@click.argument("annotations", type=click.Path(path_type=Path))
@_annotation_options
@click.option("--policy", type=click.Choice(["sib200", "plurality", "absolute", "unanimous"]),
              default="sib200", show_default=True,
              help="sib200: >= 2 votes and a strict plurality (a 2-2 split is a conflict).")
@click.option("--sheet", type=click.Path(path_type=Path),
              help="The lead's filled-in adjudication sheet to merge (column lead_label), or the Label Studio "
                   "JSON export of the adjudication tasks.")
@_out_option
@pass_app
def adjudicate(app, annotations, fmt, label_field, labels_file, min_ratings, on_error, policy, sheet, out_dir):
    """Majority vote; conflicts go to an adjudication sheet for the lead annotator.

    Without --sheet: writes DIR/decisions.csv, DIR/adjudication_sheet.csv (the
    conflicts, with an empty lead_label column), the same conflicts as Label
    Studio tasks (DIR/adjudication_tasks.json, the top-voted label as a
    prediction; DIR/label_studio_config.xml) and DIR/adjudication.json. With
    --sheet FILLED.csv or the tasks' Label Studio EXPORT.json: merges the
    lead's labels (rule `adjudicated`); items left empty stay `unresolved` and
    are listed in DIR/unresolved_sheet.csv and DIR/unresolved_tasks.json.
    """
    from builder.tasks.annotate import AdjudicateOptions, run_adjudicate

    result = run_adjudicate(AdjudicateOptions(annotations, out_dir, format=fmt, label_field=label_field,
                                              labels=labels_file,
                                              min_ratings=min_ratings, on_error=on_error, policy=policy,
                                              sheet=sheet), app.reporter())
    app.show(result)


@annotate.command()
@click.argument("labelled", type=click.Path(path_type=Path))
@click.option("--recipe", required=True, type=click.Path(path_type=Path),
              help="Curation recipe (YAML list of steps), e.g. examples/sib200-curation.yaml.")
@_out_option
@pass_app
def curate(app, labelled, recipe, out_dir):
    """Curate the label set by a recipe; every step is logged with counts.

    LABELLED is decisions.csv, a SIB-200 TSV, or a folder of train/dev/test.tsv.
    Writes DIR/curated.tsv (SIB-200 layout), DIR/labels.txt and DIR/curation_log.json.
    """
    from builder.tasks.annotate import CurateOptions, run_curate

    result = run_curate(CurateOptions(labelled, recipe, out_dir), app.reporter())
    app.show(result)


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
    from builder.tasks.annotate import SplitOptions, run_split

    result = run_split(SplitOptions(labelled, out_dir, ratios=ratios, seed=seed), app.reporter())
    app.show(result)
