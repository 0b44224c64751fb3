"""The suite's bytecode cache outside the checkout (tests/bytecode_cache.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import bytecode_cache
import pytest


def _cached(prefix: Path, source: Path, tail: str) -> Path:
    """Where Python (or pytest) caches ``source`` under ``prefix``."""
    place = prefix / Path(*source.parent.parts[1:]) / f"{source.stem}{tail}"
    place.parent.mkdir(parents=True, exist_ok=True)
    place.write_bytes(b"")
    return place


def test_a_cached_file_names_its_source_by_the_prefix_tree():
    assert bytecode_cache.source_of("/c/a/b/m.cpython-311-pytest-9.2.0.pyc") == "/c/a/b/m.py"
    assert bytecode_cache.source_of("/c/a/__init__.cpython-311.opt-1.pyc") == "/c/a/__init__.py"


def test_prune_drops_what_has_no_source_and_keeps_the_rest(tmp_path):
    prefix = tmp_path / "prefix"
    sources = tmp_path / "src" / "pkg"
    sources.mkdir(parents=True)
    kept = sources / "kept.py"
    kept.write_text("")
    rewritten = sources / "test_kept.py"
    rewritten.write_text("")
    keep = [_cached(prefix, kept, ".cpython-311.pyc"),
            _cached(prefix, rewritten, ".cpython-311-pytest-9.2.0.pyc")]
    gone = [_cached(prefix, sources / "removed.py", ".cpython-311.pyc"),
            _cached(prefix, tmp_path / "copy" / "test_x.py", ".cpython-311-pytest-9.2.0.pyc")]
    assert bytecode_cache.prune(prefix) == 2
    assert [p.exists() for p in keep] == [True, True]
    assert [p.exists() for p in gone] == [False, False]
    assert not gone[1].parent.exists()          # the copy's folder left empty went too
    assert prefix.is_dir()


def test_left_alone_without_the_variable_or_when_asked(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert bytecode_cache.enable() is None          # __pycache__ caches as usual
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv(bytecode_cache.ENABLE, "0")
    assert bytecode_cache.enable() is None
    assert sys.dont_write_bytecode is True and sys.pycache_prefix is None
    assert not (tmp_path / "shutbox-hw").exists()


def test_on_in_a_private_folder_only(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(bytecode_cache.ENABLE, raising=False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    place = bytecode_cache.folder()
    place.mkdir(parents=True)
    place.chmod(0o777)                   # another user could plant bytecode in it: not used
    assert bytecode_cache.enable() is None
    assert sys.dont_write_bytecode is True and sys.pycache_prefix is None
    place.chmod(0o700)
    assert bytecode_cache.enable() == place
    assert (sys.dont_write_bytecode, sys.pycache_prefix) == (False, str(place))


@pytest.mark.skipif(sys.pycache_prefix != str(bytecode_cache.folder()),
                    reason="the cache is on only where PYTHONDONTWRITEBYTECODE is set")
def test_this_file_was_compiled_into_the_cache_outside_the_checkout():
    this = Path(__file__).resolve()
    assert not bytecode_cache.folder().resolve().is_relative_to(this.parent.parent)
    cached = bytecode_cache.folder() / Path(*this.parent.parts[1:])
    assert any(bytecode_cache.source_of(str(p)).endswith(this.name)
               for p in cached.glob(f"{this.stem}.*-pytest-*.pyc"))
