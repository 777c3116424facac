"""Maximum flow by shortest augmenting paths (Edmonds-Karp), one unit at a time: the minimum
vertex cuts of the S-partition checker (``ioverify.game.partition``) and of the exhaustive
search's recompute count (``ioverify.game.exhaustive``).  Part of the trusted base: pure
Python, exact integers."""

from __future__ import annotations

from collections import deque


class FlowNetwork:
    """A residual network with integer capacities; augmenting paths found by BFS (Edmonds-Karp)."""

    INF = 1 << 60

    def __init__(self, size: int, source: int, sink: int):
        self.source, self.sink = source, sink
        self.head: list[list[int]] = [[] for _ in range(size)]
        self.to: list[int] = []
        self.cap: list[int] = []

    def add(self, a: int, b: int, capacity: int) -> None:
        self.head[a].append(len(self.to))
        self.to.append(b)
        self.cap.append(capacity)
        self.head[b].append(len(self.to))
        self.to.append(a)
        self.cap.append(0)

    def augment(self) -> bool:
        """Push one unit along a shortest augmenting path; False if none exists."""
        via = self._search()
        if via[self.sink] is None:
            return False
        node = self.sink
        while node != self.source:
            edge = via[node]
            self.cap[edge] -= 1
            self.cap[edge ^ 1] += 1
            node = self.to[edge ^ 1]
        return True

    def _search(self) -> list[int | None]:
        via: list[int | None] = [None] * len(self.head)
        seen = [False] * len(self.head)
        seen[self.source] = True
        queue = deque([self.source])
        while queue and not seen[self.sink]:
            a = queue.popleft()
            for edge in self.head[a]:
                b = self.to[edge]
                if self.cap[edge] > 0 and not seen[b]:
                    seen[b], via[b] = True, edge
                    queue.append(b)
        return via

    def cut_vertices(self) -> set[int]:
        """After max-flow: vertices whose in-node is reachable in the residual network and whose
        out-node is not (the saturated vertex edges crossing the minimum cut)."""
        seen = [False] * len(self.head)
        seen[self.source] = True
        queue = deque([self.source])
        while queue:
            a = queue.popleft()
            for edge in self.head[a]:
                if self.cap[edge] > 0 and not seen[self.to[edge]]:
                    seen[self.to[edge]] = True
                    queue.append(self.to[edge])
        return {node // 2 for node in range(0, len(self.head) - 2, 2)
                if seen[node] and not seen[node + 1]}
