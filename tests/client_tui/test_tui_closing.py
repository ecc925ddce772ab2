"""A frame that reaches the app after its screens are gone (the app closing while the server
still talks) is dropped, not a crash (a loaded suite run saw `ScreenStackError`; the old code
raises here too)."""

from __future__ import annotations

from client_tui.app import ServerFrame, ZhuojiApp
from client_tui.offline import OfflineTable
from rules.options import PRESETS
from rules.round import Round


async def test_a_frame_after_the_screens_are_gone_is_dropped() -> None:
    app = ZhuojiApp("ws://offline", name="me", lang="en", ascii=True, connect=False)
    table = OfflineTable(Round.deal(PRESETS["guiyang"], seed=7), 0)
    frames = list(table.opening())
    async with app.run_test(size=(100, 30)):
        app.apply(frames[0])
    assert not app.screen_stack
    for frame in frames[1:]:
        app.on_server_frame(ServerFrame(frame, at=0.0))  # raised before (no screen, no mode)
    assert not app.screen_stack
