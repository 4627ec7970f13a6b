"""Small readings of a stallscope-cli JSON report shared by check-keyless.py and check-keyed.py."""


def handshakes(rep):
    """The report's TLS objects, and its (full, resumed) handshake counts."""
    tls = [k["tls"] for k in rep["connections"] if "tls" in k]
    full = sum(1 for t in tls if not t["resumed"] and t["handshake_first_frame"])
    resumed = sum(1 for t in tls if t["resumed"])
    return tls, full, resumed


def handshake_problem(rep, pathologies):
    """A line when the full/resumed handshakes differ from the label's, else None."""
    _, full, resumed = handshakes(rep)
    want = (pathologies["full_handshakes"], pathologies["resumed_handshakes"])
    if (full, resumed) != want:
        return f"handshakes full/resumed: stallscope {full}/{resumed}, label {want[0]}/{want[1]}"
    return None
