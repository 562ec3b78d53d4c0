"""Cyclone DDS configuration of mjscope's participants, and the DDS domains open in this process.

Every DDS domain mjscope joins is created with :func:`cyclone_config`: a fragment of mjscope's
own defaults, followed by the user's ``CYCLONEDDS_URI`` when it is set, so that **every setting
the user's configuration makes wins** (Cyclone DDS applies the fragments in order). mjscope's
defaults:

- ``Discovery/LeaseDuration`` :data:`LEASE_S`: a peer that dies without saying goodbye (a
  killed process) is dropped from the publisher counts after this long (Cyclone's default is
  10 s; a ROS 2 node still advertises its own lease, usually 10 s).
- ``Internal/MaxSampleSize`` :data:`MAX_DDS_SAMPLE_BYTES`: Cyclone DDS drops larger samples
  before reassembling them (nothing is allocated for them); smaller hostile ones are counted by
  the subscriber (``too_large``).
- with ``localhost_only``: ``General/Interfaces/NetworkInterface address="127.0.0.1"`` (with
  multicast, which the loopback interface carries on Linux): nothing is sent to, or received
  from, another host. Network interface lists from several fragments add up, so
  ``localhost_only`` together with a ``CYCLONEDDS_URI`` that names interfaces or peers is refused
  rather than silently opened to the network.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from cyclonedds.core import DDSException
from cyclonedds.domain import Domain

from mjscope.exceptions import MjscopeError

logger = logging.getLogger(__name__)

LEASE_S = 2.0  # participant lease advertised by mjscope [s]
MAX_DDS_SAMPLE_BYTES = 2 * 1024 * 1024  # Cyclone drops larger samples on receipt [bytes]
LOOPBACK = "127.0.0.1"

# Elements of a user configuration that would add interfaces or peers beyond the loopback.
_OPENS_NETWORK = re.compile(r"<\s*(?:\w+:)?(?:NetworkInterface\w*|Interfaces|Peers?)\b")
_FILE_URI = re.compile(r"file://([^,<>]+)")


def cyclone_config(localhost_only: bool, user_uri: str | None = None) -> str:
    """The configuration string a domain is created with (see the module docstring).

    Args:
        localhost_only: Keep all traffic on the loopback interface.
        user_uri: The user's ``CYCLONEDDS_URI`` (``None`` or empty: none).

    Returns:
        mjscope's fragment, then ``user_uri`` (comma-separated, as Cyclone DDS reads them).

    Raises:
        MjscopeError: ``localhost_only`` with a ``user_uri`` that names network interfaces or
            peers, or a ``user_uri`` that is not ASCII.
    """
    net = (
        f'<General><Interfaces><NetworkInterface address="{LOOPBACK}" multicast="true"/>'
        "</Interfaces></General>"
        if localhost_only
        else ""
    )
    ours = (
        f'<CycloneDDS><Domain id="any">{net}'
        f"<Discovery><LeaseDuration>{LEASE_S:g}s</LeaseDuration></Discovery>"
        f"<Internal><MaxSampleSize>{MAX_DDS_SAMPLE_BYTES}B</MaxSampleSize></Internal>"
        "</Domain></CycloneDDS>"
    )
    user = (user_uri or "").strip()
    if not user:
        return ours
    if not user.isascii():
        raise MjscopeError("CYCLONEDDS_URI holds non-ASCII characters; Cyclone DDS reads ASCII")
    if localhost_only and _OPENS_NETWORK.search(_with_files(user)):
        raise MjscopeError(
            "localhost-only (--localhost-only or ROS_LOCALHOST_ONLY=1) cannot be kept: "
            "CYCLONEDDS_URI names its own network interfaces or peers; remove them from it, "
            "or drop --localhost-only / unset ROS_LOCALHOST_ONLY"
        )
    return f"{ours},{user}"


def _with_files(uri: str) -> str:
    """The URI text plus the content of every ``file://`` configuration it names (readable)."""
    parts = [uri]
    for m in _FILE_URI.finditer(uri):
        path = Path(os.path.expandvars(m.group(1).strip()))
        try:
            parts.append(path.read_text(errors="replace"))
        except OSError:
            pass  # Cyclone DDS reports an unreadable file itself, when the domain is created
    return "\n".join(parts)


@dataclass
class _OpenDomain:
    config: str
    localhost_only: bool
    domain: Domain | None  # None: the domain existed before mjscope opened it
    users: int = 0


_DOMAINS: dict[int, _OpenDomain] = {}
_LOCK = threading.Lock()


def acquire_domain(domain_id: int, localhost_only: bool) -> None:
    """Create DDS domain ``domain_id`` with mjscope's configuration, or join it if open already.

    Call :func:`release_domain` once per call when done.

    Raises:
        MjscopeError: The domain is already open in this process with the other
            ``localhost_only`` setting, or was created outside mjscope while ``localhost_only``
            is asked, or Cyclone DDS rejects the configuration.
    """
    config = cyclone_config(localhost_only, os.environ.get("CYCLONEDDS_URI"))
    with _LOCK:
        d = _DOMAINS.get(domain_id)
        if d is None:
            d = _DOMAINS[domain_id] = _create(domain_id, config, localhost_only)
        elif d.config != config:
            raise MjscopeError(
                f"DDS domain {domain_id} is already open in this process with "
                f"localhost_only={d.localhost_only}; use one setting per domain"
            )
        d.users += 1


def _create(domain_id: int, config: str, localhost_only: bool) -> _OpenDomain:
    try:
        return _OpenDomain(config, localhost_only, Domain(domain_id, config))
    except DDSException as e:
        if e.code != DDSException.DDS_RETCODE_PRECONDITION_NOT_MET:
            raise MjscopeError(
                f"Cyclone DDS rejects the configuration of domain {domain_id}: {e}; "
                "check CYCLONEDDS_URI"
            ) from e
    # The domain exists already: another library in this process created it, with its config.
    if localhost_only:
        raise MjscopeError(
            f"DDS domain {domain_id} was opened in this process before mjscope could restrict "
            "it to the loopback interface; use another --domain-id"
        )
    logger.debug("DDS domain %d already exists; joining it with its configuration", domain_id)
    return _OpenDomain(config, localhost_only, None)


def release_domain(domain_id: int) -> None:
    """Leave a domain joined with :func:`acquire_domain`; the last user deletes it."""
    with _LOCK:
        d = _DOMAINS.get(domain_id)
        if d is None:
            return
        d.users -= 1
        if d.users > 0:
            return
        del _DOMAINS[domain_id]
    if d.domain is not None:
        try:
            d.domain.__del__()
        except DDSException as e:  # pragma: no cover - only on a broken DDS library
            logger.debug("DDS domain delete failed: %s", e)
