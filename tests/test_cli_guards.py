"""The command line's guards of issue 20: ``kc export`` refuses to replace a folder unless told;
``kc eval`` checks its extras before it plays a deal (Ctrl-C in ``kc train``: test_train_interrupt)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

# Imported before any test here patches tournament.run_tournament: kc_env.benchmark.evaluate binds
# it when first imported, and would keep, for every later test, a patch made while it was.
import kc_env.benchmark  # noqa: F401
from kc_env.cli import main


def test_kc_eval_checks_its_extras_before_playing(monkeypatch, capsys, tmp_path):
    from kc_env import tournament

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    monkeypatch.setattr(tournament, "run_tournament", lambda *a, **k: pytest.fail("played before checking"))
    assert main(["eval", "random", "greedy", "--deals", "2", "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "eval extra" in err and "matplotlib" in err and len(err.strip().splitlines()) == 1
    assert err.startswith("kc eval: --plot needs the eval extra"), "one prefix, not 'kc eval: kc eval needs'"


def test_kc_eval_plays_without_openskill_and_leaves_the_ratings_out(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openskill" else real(name, *a))
    assert main(["eval", "random", "greedy", "--deals", "4", "--workers", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "no ratings" in captured.err and "openskill" in captured.err
    assert "win share" in captured.out and "ratings (openskill" not in captured.out


def test_kc_export_refuses_to_replace_a_folder_unless_told(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    target = tmp_path / "models" / "mine"
    target.mkdir(parents=True)
    (target / "model.json").write_text("{}")
    assert main(["export", str(tmp_path / "no-run"), str(target), "--deals", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--overwrite" in err and len(err.strip().splitlines()) == 1
    assert (target / "model.json").read_text() == "{}"
    assert main(["export", str(tmp_path / "no-run"), str(target), "--overwrite", "--no-progress"]) == 2
    assert "already exists" not in capsys.readouterr().err  # past the guard: the run is what is missing


NOT_PLAYED = "played before checking"


def _no_play(monkeypatch) -> None:
    from kc_env import benchmark, tournament

    monkeypatch.setattr(tournament, "run_tournament", lambda *a, **k: pytest.fail(NOT_PLAYED))
    monkeypatch.setattr(benchmark, "evaluate", lambda *a, **k: pytest.fail(NOT_PLAYED))


@pytest.mark.parametrize("name", ["e.txt", "eplot"])
@pytest.mark.parametrize("command", [["eval", "random", "greedy", "--deals", "2"], ["benchmark", "random", "--quick"],
                                     ["benchmark", "--runs", "r1", "r2"]])
def test_a_chart_is_a_png_svg_or_pdf_and_any_other_name_is_refused_before_playing(command, name, tmp_path,
                                                                                  monkeypatch, capsys):
    """The suffix chooses the chart's format: .txt (which matplotlib cannot draw) and no suffix
    (matplotlib would write eplot.png, not the file named) are refused in one line, before a deal."""
    _no_play(monkeypatch)
    path = tmp_path / name
    assert main([*command, "--plot", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"kc {command[0]}: --plot {path}: name a .png, .svg or .pdf file"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's /sys")
@pytest.mark.parametrize("command", [["play", "heuristic", "--one-deal", "--save"],
                                     ["eval", "random", "greedy", "--deals", "2", "--json"],
                                     ["eval", "random", "greedy", "--deals", "2", "--plot"]])
def test_an_output_file_that_cannot_be_created_is_refused_before_playing(command, monkeypatch, capsys):
    """/sys/kernel is a folder that even root may not create files in (os.access says yes): the
    file is tried before the game, not found unwritable after it."""
    _no_play(monkeypatch)
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail(NOT_PLAYED))
    path = "/sys/kernel/g.png"
    assert main([*command, path]) == 2
    assert capsys.readouterr().err.strip() == f"kc {command[0]}: {command[-1]} {path}: cannot write there (Permission denied)"


def test_checking_an_output_file_leaves_no_empty_file_behind(tmp_path, capsys):
    path = tmp_path / "e.json"
    assert main(["eval", "random", "grandmaster", "--deals", "2", "--json", str(path)]) == 2
    assert "unknown agent spec 'grandmaster'" in capsys.readouterr().err
    assert not path.exists()


@pytest.mark.parametrize("against, said", [("nosuchagent", "unknown agent spec 'nosuchagent'"),
                                           ("", "an empty entry"), ("random,", "an empty entry"),
                                           ("heuristic,,random", "an empty entry"),
                                           ("mine.py:Mine", "unknown agent spec 'mine.py:Mine'")])
def test_kc_export_checks_the_against_specs_before_writing_the_model(against, said, tmp_path, capsys, monkeypatch):
    """A bad --against spec is refused before the model is written, not by the evaluation after
    it (which left a model behind, and a retry then found the folder taken); a user's class, which
    the evaluation cannot seat (a late probe: the first check took it), is refused the same way."""
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text("from kc_env.agents import RandomAgent as Mine\n")
    folder = tmp_path / "exp" / "s3"
    assert main(["export", "search", str(folder), "--deals", "2", "--against", against, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kc export: --against: ") and said in err and len(err.strip().splitlines()) == 1
    assert not folder.exists()


def test_kc_export_reads_against_with_spaces_after_the_commas():
    from kc_env.training.commands.export import _opponents

    assert _opponents("random, greedy ,heuristic") == ["random", "greedy", "heuristic"]


def test_kc_export_reads_a_spec_with_several_options_in_against():
    """``name=value`` after a comma continues the spec before it (a late probe: ``--against
    search:redeals=2,candidates=2`` was refused as "unknown agent spec 'candidates=2'")."""
    from kc_env.training.commands.export import _opponents

    assert _opponents("search:redeals=2,candidates=2,random,heuristic:corner=0,card=1.1") == [
        "search:redeals=2,candidates=2", "random", "heuristic:corner=0,card=1.1"]


@pytest.mark.parametrize("count", ["0", "-7"])
@pytest.mark.parametrize("argv", [["export", "search", "OUT", "--deals"], ["eval", "random", "--deals"],
                                  ["compare", "greedy", "random", "--deals"], ["eval", "random", "--workers"],
                                  ["benchmark", "random", "--quick", "--workers"], ["serve", "--max-games"]])
def test_a_count_below_one_is_refused_by_the_shared_positive_int(argv, count, tmp_path, capsys, monkeypatch):
    """kc export, eval and compare checked --deals by hand (and eval and benchmark --workers, serve
    --max-games), where the other counts are the shared argparse type positive_int: one message."""
    if argv[0] == "export":
        pytest.importorskip("torch")
    _no_play(monkeypatch)
    folder = tmp_path / "out"
    with pytest.raises(SystemExit) as caught:
        main([str(folder) if arg == "OUT" else arg for arg in argv] + [count])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"kc {argv[0]}: error: argument {argv[-1]}: must be positive, got {count}"
    assert not folder.exists()


def test_kc_export_of_a_file_says_it_is_not_a_folder(tmp_path, capsys):
    pytest.importorskip("torch")
    readme = tmp_path / "README.md"
    readme.write_text("# not a run\n")
    assert main(["export", str(readme), str(tmp_path / "out"), "--no-progress"]) == 2
    assert capsys.readouterr().err.strip() == (f"kc export: {readme} is a file, not a folder; give a kc train run "
                                               "folder, a model folder or a search spec")


def test_checking_an_output_file_keeps_a_link_and_its_target_as_they_were(tmp_path, capsys, monkeypatch):
    """A late probe: a link to a file not yet written was followed to create the target, then the
    link itself was deleted (``d.json`` gone, an empty ``out.json`` left), even when the command failed."""
    monkeypatch.chdir(tmp_path)
    Path("d.json").symlink_to("out.json")
    assert main(["eval", "random", "grandmaster", "--deals", "2", "--json", "d.json"]) == 2
    assert "unknown agent spec 'grandmaster'" in capsys.readouterr().err
    assert Path("d.json").is_symlink() and not Path("out.json").exists()


def test_checking_an_output_file_does_not_open_a_fifo(tmp_path, capsys):
    """A FIFO (``--json >(jq .)`` or ``mkfifo``) is written through at the end, as before: opening
    it to try it blocked until a reader came, then handed the reader an empty file."""
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    assert main(["eval", "random", "grandmaster", "--deals", "2", "--json", str(fifo)]) == 2  # no hang
    assert "unknown agent spec 'grandmaster'" in capsys.readouterr().err


def test_an_output_file_under_a_file_says_that_file_is_not_a_folder(tmp_path, capsys):
    """A late probe: ``--json existing.json/out.json`` said "the folder existing.json does not exist"."""
    (tmp_path / "existing.json").write_text("{}")
    path = tmp_path / "existing.json" / "out.json"
    assert main(["eval", "random", "greedy", "--deals", "2", "--json", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"kc eval: --json {path}: {tmp_path / 'existing.json'} is a file, not a folder"


@pytest.mark.parametrize("name", ["x.png/", "folder.png", "folder.png/"])
@pytest.mark.parametrize("command", [["eval", "random", "greedy", "--deals", "2"], ["benchmark", "random", "--quick"]])
def test_a_chart_named_as_a_folder_is_refused_in_one_line_saying_so(command, name, tmp_path, monkeypatch, capsys):
    """``--plot x.png/`` said "cannot write there (Is a directory)" of a folder that does not exist,
    and ``--plot`` naming a folder "cannot write there", with no reason."""
    _no_play(monkeypatch)
    (tmp_path / "folder.png").mkdir()
    path = f"{tmp_path}/{name}"
    assert main([*command, "--plot", path]) == 2
    assert capsys.readouterr().err == f"kc {command[0]}: --plot {path}: names a folder; name a file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.png"]


@pytest.mark.parametrize("command", [["play", "heuristic", "--one-deal", "--save"],
                                     ["compare", "greedy", "random", "--deals", "2", "--json"]])
def test_any_output_file_named_as_a_folder_is_refused_the_same_way(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail(NOT_PLAYED))
    (tmp_path / "exists.json").write_text("{}")
    for path in (f"{tmp_path}/", f"{tmp_path}/exists.json/", f"{tmp_path}/exists.json/.", f"{tmp_path}/new.json/."):
        assert main([*command, path]) == 2
        assert capsys.readouterr().err == f"kc {command[0]}: {command[-1]} {path}: names a folder; name a file\n"
    assert (tmp_path / "exists.json").read_text() == "{}"
    assert main([*command, ""]) == 2  # a probe: it said "--json : names a folder"
    assert capsys.readouterr().err == f"kc {command[0]}: {command[-1]} needs a file name\n"
