"""The zhuoji terminal client (Textual): `zhuoji play`, `zhuoji join`, `zhuoji watch`.

- `view`, `reducer`: the pure core — server frames in, an immutable `View` out.
- `analysis`, `sheet`: what the client works out with the shared rules core (waits and 通行证,
  the settlement sheet).
- `net`: the connection that outlives dropped sockets; `offline`: a table without a server
  (tests, snapshots). The server `zhuoji play` hosts is composed in `zhuoji.play_process` (`zhuoji.play`).
- `app`, `screens/`, `widgets`, `render`: the Textual app; widgets only render the view.
"""
