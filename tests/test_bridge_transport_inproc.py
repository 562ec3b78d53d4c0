from __future__ import annotations

import pytest

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport import make_transport
from mjscope.exceptions import UnknownNameError


def test_subscribers_get_independent_copies_and_counts() -> None:
    with make_transport("inproc") as t:
        s1 = t.subscriber("/a", JointState)
        s2 = t.subscriber("/a", JointState)
        other = t.subscriber("/b", JointState)
        assert s1.publisher_count() == 0
        pub = t.publisher("/a", JointState)
        pub2 = t.publisher("/a", JointState)
        assert s1.publisher_count() == 2
        msg = JointState(Stamp(1, 5), "", ["j"], [0.5], [], [])
        pub.publish(msg)
        msg.position[0] = 9.0
        got1, got2 = s1.take(), s2.take()
        assert got1[0].position == [0.5] and got2[0].position == [0.5]
        got1[0].position[0] = 7.0
        assert got2[0].position == [0.5]
        assert other.take() == [] and s1.take() == []
        pub2.close()
        assert s1.publisher_count() == 1


def test_queue_is_bounded_and_poll_returns_newest() -> None:
    t = make_transport("inproc")
    s = t.subscriber("/a", JointState, depth=3)
    p = t.publisher("/a", JointState)
    for i in range(5):
        p.publish(JointState(name=["j"], position=[float(i)]))
    assert s.poll().position == [4.0]
    for i in range(5):
        p.publish(JointState(name=["j"], position=[float(i)]))
    assert [m.position[0] for m in s.take()] == [2.0, 3.0, 4.0]
    t.close()


def test_unknown_transport() -> None:
    with pytest.raises(UnknownNameError, match="inproc"):
        make_transport("zmq")


def test_stamp_roundtrip() -> None:
    s = Stamp.from_seconds(12.25)
    assert (s.sec, s.nanosec) == (12, 250_000_000)
    assert s.to_seconds() == pytest.approx(12.25)


def test_hand_over_shares_one_message_and_subscribed_follows_the_subscribers() -> None:
    with make_transport("inproc") as t:
        pub = t.publisher("/a", JointState)
        assert pub.subscribed is False  # type: ignore[attr-defined]
        pub.hand_over(JointState(name=["j"], position=[0.0]))  # type: ignore[attr-defined]
        s1, s2 = t.subscriber("/a", JointState), t.subscriber("/a", JointState)
        assert pub.subscribed is True  # type: ignore[attr-defined]
        msg = JointState(Stamp(1, 5), "", ["j"], [0.5], [], [])
        pub.hand_over(msg)  # type: ignore[attr-defined]
        (got1,), (got2,) = s1.take(), s2.take()
        assert got1 is msg and got2 is msg  # no copy, and nothing from before they subscribed
        s1.close()
        s2.close()
        assert pub.subscribed is False  # type: ignore[attr-defined]
