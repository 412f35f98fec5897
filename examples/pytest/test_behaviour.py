"""Behavioural evals written as pytest tests (run with the scripted model beside them):

    pytest examples/pytest --eval-model scripted:examples/pytest/agent.yaml            # skips
    RUN_EVALS=1 pytest examples/pytest --eval-model scripted:examples/pytest/agent.yaml
"""

from trialrun.testing import eval_test


@eval_test("ALWAYS_PASSES", prompt="What is the first item in todo.md?",
           files={"todo.md": "- buy lantern oil\n- mend the net\n"})
def test_reads_the_note(rig, result):
    assert "lantern oil" in result
    assert rig.called("read_file", path="todo.md")


@eval_test("USUALLY_PASSES", prompt="Add 'feed the cat' to todo.md.",
           files={"todo.md": "- buy lantern oil\n"})
def test_appends_an_item(rig, result):
    assert "feed the cat" in rig.read("todo.md")
    assert "lantern oil" in rig.read("todo.md")  # the old item is kept
    assert rig.diff().modified == ["todo.md"]


@eval_test("USUALLY_PASSES", prompt="Delete nothing; just list the files.",
           files={"keep.md": "important\n"})
def test_never_deletes(rig, result):
    assert rig.exists("keep.md")
    assert not rig.called("delete_file")


@eval_test("USUALLY_FAILS", prompt="How many items are in todo.md?",
           files={"todo.md": "- a\n- b\n- c\n"})
def test_counts_items(rig, result):
    assert "3" in result
