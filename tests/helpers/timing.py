"""Wall-clock bounds that hold on a loaded two-core machine.

A lower bound (a limiter waited at least this long) only gets safer under load. An upper
bound is there to rule out a much longer wait (a default 600 s timeout, a 60 s Retry-After,
a serial run); it is set far enough below that wait that load does not reach it, instead of
close to what an idle machine measures. bench/ measures the speeds themselves.
"""

from __future__ import annotations

__all__ = ["PROMPT_S"]

# "Promptly": what a step that should take well under a second may take on a busy machine,
# still far below the waits the tests rule out (a 20 s client timeout, a 60 s Retry-After).
PROMPT_S = 10.0
