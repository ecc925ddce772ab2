"""Interface text in Chinese and English. Game terms keep their Chinese names in both (a player of
捉鸡 knows 碰 and 杠); the English interface adds a gloss where it helps.

>>> Lang("en").t("pong")
'碰 Pong'
>>> Lang("zh").t("pong")
'碰'
>>> Lang("en").t("seat_n", n=2)
'Seat 2'
"""

from __future__ import annotations

import locale
import os
from enum import StrEnum

from client_tui.option_text import CHOICE_TEXT, GROUP_TEXT, OPTION_TEXT
from rules.kinds import BonusKind, ChickenKind, DouKind, ExtraKind, PatternKind

# key → (zh, en). `{name}` fields are filled by `Lang.t(key, name=...)`.
TEXT: dict[str, tuple[str, str]] = {
    # the table
    "round": ("第{n}/{of}局", "Round {n}/{of}"),
    "wall": ("余{n}张", "wall {n}"),
    "base": ("底{n}", "base {n}"),
    "xingqi_today": ("星期鸡 {tiles}", "weekday chickens {tiles}"),
    "dealer": ("庄", "dealer"),
    "streak": ("连{n}", "streak {n}"),
    "auto": ("托管", "托管 auto"),
    "offline": ("断线", "offline"),
    "away": ("离座", "away"),
    "bot": ("机器人", "bot"),
    "declared": ("报听", "报听 declared"),
    "tiles_in_hand": ("手牌{n}", "{n} tiles"),
    "your_turn": ("轮到你出牌", "Your turn: discard"),
    "turn_of": ("{name} 出牌中", "{name} to play"),
    "claim_window": ("{name} 打 {tile}", "{name} discarded {tile}"),
    "rob_window": ("{name} 补杠 {tile}", "{name} adds a 杠 with {tile}"),
    "you": ("你", "you"),
    "seat_n": ("座位{n}", "Seat {n}"),
    "empty_seat": ("空位", "empty"),
    "xiajia": ("下家", "right"),
    "duijia": ("对家", "across"),
    "shangjia": ("上家", "left"),
    "me": ("本家", "me"),
    "spectating": ("观战", "watching"),
    "score": ("分", "pts"),
    "last_discarded": ("{name} 打 {tile}", "{name} discarded {tile}"),
    "last_pong": ("{name} 碰 {tile}", "{name} 碰 pong {tile}"),
    "last_gang": ("{name} 杠 {tile}", "{name} 杠 kong {tile}"),
    "last_an": ("{name} 暗杠", "{name} concealed 杠"),
    "last_bu": ("{name} 补杠 {tile}", "{name} added 杠 {tile}"),
    "last_auto": ("{name} 托管出牌（{why}）", "{name} auto-played ({why})"),
    "why_timeout": ("超时", "timeout"),
    "why_disconnected": ("断线", "disconnected"),
    "why_auto": ("托管", "托管"),
    "won_zimo": ("{name} 自摸 {pattern}", "{name} wins by 自摸: {pattern}"),
    "won_discard": (
        "{name} 胡 {from_name} 的 {tile}：{pattern}",
        "{name} wins on {from_name}'s {tile}: {pattern}",
    ),
    "won_rob": ("{name} 抢杠胡 {tile}：{pattern}", "{name} robs the 杠 on {tile}: {pattern}"),
    "exhausted": ("荒庄：牌已摸完", "荒庄: the wall is empty"),
    "hand_revealed": ("手牌", "hand"),
    "round_over": ("本局结束 — 按 s 看结算", "Round over — s for the settlement"),
    "next_round": ("下一局即将开始…", "next round starting…"),
    "legend_taken": ("被碰杠胡", "taken"),
    "legend_declared": ("报听", "报听"),
    "reveal_hint": (
        "亮牌：{s}秒后打开结算，按任意键马上看",
        "Hands shown: the settlement opens in {s}s, or press any key",
    ),
    "bank_left": ("备{s}秒", "bank {s}s"),
    # prompts
    "hu": ("胡", "胡 Win"),
    "zimo": ("自摸", "自摸 Win"),
    "pong": ("碰", "碰 Pong"),
    "gang": ("杠", "杠 Kong"),
    "pass": ("过", "过 Pass"),
    "ready": ("报听", "报听 Declare"),
    "sheet_gave_way": (
        "轮到你了：结算已关闭（按 s 再看）",
        "Your move: the sheet gave way to the table (s shows it again)",
    ),
    "auto_on": ("托管中：按 a 自己打", "托管: the server plays for you — a to take over"),
    "ready_on": ("报听：出牌时宣布", "报听 on: declared with the discard"),
    "discard_hint": (
        "←→ 选牌，Enter 出牌，或按牌上的键",
        "←→ pick, Enter discards, or a tile's key",
    ),
    "waiting_answer": ("已发送…", "sent…"),
    "clock": ("{s}秒", "{s}s"),
    "bank": ("（备用{s}秒）", " (bank {s}s)"),
    "choose_gang": ("杠哪张？", "Which 杠?"),
    # waits
    "waits": ("听", "Waits"),
    "left": ("剩{n}", "{n} left"),
    "pass_ok": ("有豆（通行证）：可胡别人打的牌", "通行证: a 豆 lets 平胡 win on discards"),
    "zimo_only": ("无豆：平胡只能自摸", "no 豆: 平胡 wins by 自摸 only"),
    "after_discard": ("打 {tile} 听：", "Discard {tile} → waits:"),
    "keep_ready": ("打出这些牌可以听牌：", "discarding one of these leaves you ready:"),
    # connection
    "connecting": ("正在连接 {url}…", "Connecting to {url}…"),
    "reconnecting": ("连接中断，正在重连（第{n}次）…", "Connection lost — reconnecting (try {n})…"),
    "connected": ("已连接", "connected"),
    "closed": ("连接已关闭：{why}", "Disconnected: {why}"),
    "not_connected": ("未连接", "not connected"),
    "seat_kept": (
        "座位为你保留，连上后自动继续",
        "your seat is kept; the game comes back when the server does",
    ),
    "resume_watch": ("连上后继续观战", "watching resumes when the server is back"),
    "quit_hint": ("按 q 退出", "q quits"),
    "seat_gone": (
        "你的座位已不在：比赛已结束，或服务器已不记得它",
        "Your seat is gone: the match ended or the server no longer has it",
    ),
    "taking_back": ("正在回到你的座位…", "Taking your seat back…"),
    "your_seat": ("你的座位", "your seat"),
    "room_watching": (
        "你在观战：开局由入座的玩家决定",
        "You are watching: the seated players start",
    ),
    # lobby
    "lobby": ("大厅", "Lobby"),
    "tables": ("牌桌", "Tables"),
    "col_id": ("号", "#"),
    "col_name": ("名称", "Name"),
    "col_preset": ("规则", "Rules"),
    "col_options": ("改动", "Overrides"),
    "col_seats": ("座位", "Seats"),
    "col_watchers": ("观战", "Watching"),
    "col_state": ("状态", "State"),
    "col_round": ("局", "Round"),
    "state_waiting": ("等待", "waiting"),
    "state_playing": ("进行中", "playing"),
    "state_finished": ("已结束", "finished"),
    "btn_create": ("开桌", "Create table"),
    "btn_join": ("入座", "Sit"),
    "btn_watch": ("观战", "Watch"),
    "btn_refresh": ("刷新", "Refresh"),
    "btn_quit": ("退出", "Quit"),
    "btn_cancel": ("取消", "Cancel"),
    "btn_ok": ("确定", "OK"),
    "btn_start": ("开始", "Start"),
    "btn_add_bot": ("加机器人", "Add bot"),
    "btn_remove_bot": ("移除机器人", "Remove bot"),
    # bot levels and pace
    "choose_level": ("加哪种机器人？", "Which bot?"),
    "level_easy": ("简单", "easy"),
    "level_normal": ("普通", "normal"),
    "level_strong": ("强", "strong"),
    "level_easy_about": ("简单：偶尔出错，少碰", "easy: slips now and then, pongs less"),
    "level_normal_about": ("普通：一直以来的机器人", "normal: the usual bot"),
    "level_strong_about": (
        "强：接近听牌时估算每种打法，明显更好才改变普通的出牌；会碰向大对子",
        "strong: near ready, changes normal's move where sampled draws clearly favour another; pongs toward 大对子",
    ),
    "bot_delay": ("机器人出牌间隔", "Bot pace"),
    "bot_delay_default": ("服务器默认", "server default"),
    "bot_delay_instant": ("立即", "instant"),
    "bot_delay_s": ("{s} 秒", "{s} s"),
    # hints
    "hints": ("提示", "hints"),
    "hints_thinking": ("强机器人正在想……", "The strong bot is thinking…"),
    "hint_discard": ("打 {tile}", "discard {tile}"),
    "hints_title": ("强机器人会这样打：", "The strong bot would play:"),
    "hint_value": ("估值 {v}", "value {v}"),
    "hint_win": ("现在胡：{pattern}", "win now: {pattern}"),
    "hint_ready_waits": (
        "听{waits}种，还剩{live}张：胡牌机会 {win}%",
        "ready on {waits} tiles, {live} unseen: win chance {win} %",
    ),
    "hint_declare": (
        "报听，听{waits}种，还剩{live}张：胡牌机会 {win}%",
        "报听 declared: {waits} waits, {live} unseen, win chance {win} %",
    ),
    "hint_releases_chicken": (
        "放走{tile}：听牌机会 {ready}%",
        "lets {tile} go: ready chance {ready} %",
    ),
    "hint_keeps_chicken": ("留住{tile}：听牌机会 {ready}%", "keeps {tile}: ready chance {ready} %"),
    "hint_ready_chance": ("听牌机会 {ready}%", "ready chance {ready} %"),
    "danger_safe": ("安全", "safe"),
    "danger_low": ("放炮风险低", "low risk of feeding a win"),
    "danger_some": ("有放炮风险", "some risk of feeding a win"),
    "danger_high": ("危险，容易放炮", "dangerous: likely feeds a win"),
    "danger_declared": ("报听家可能在等这张", "a 报听 player may be waiting on it"),
    "hint_gang": ("得豆和通行证：听牌机会 {ready}%", "a 豆 and a 通行证: ready chance {ready} %"),
    "hint_pong": ("碰后听牌机会 {ready}%", "after the 碰: ready chance {ready} %"),
    "hint_pass": ("不碰，听牌机会 {ready}%", "keeping the hand: ready chance {ready} %"),
    "chicken_1s": ("幺鸡", "幺鸡"),
    "chicken_8p": ("乌骨鸡", "乌骨鸡"),
    "why_hints_off": (
        "本桌关闭了提示（hints=false）",
        "Hints are off at this table (its hints=false)",
    ),
    "why_no_hint": (
        "现在没有你要做的选择：轮到你时再看提示",
        "Nothing to decide now: hints come with your move",
    ),
    "btn_leave": ("离开", "Leave"),
    "seat_any": ("任意空位", "any free seat"),
    "no_tables": ("还没有牌桌：按 c 开一桌", "No tables yet: press c to create one"),
    "tables_page": ("牌桌 · 第 {n}/{of} 页（[ ] 翻页）", "Tables · page {n}/{of} ([ ] pages)"),
    "password": ("密码", "Password"),
    "password_opt": ("密码（可不填）", "Password (optional)"),
    "create_title": ("开一桌", "Create a table"),
    "table_name": ("桌名", "Table name"),
    "preset": ("规则", "Rules"),
    "preset_guiyang": ("贵阳捉鸡", "guiyang 贵阳"),
    "preset_chuan": ("捉鸡川麻", "chuan 川麻"),
    "preset_anshun": ("安顺捉鸡", "anshun 安顺"),
    "rounds": ("局数", "Rounds"),
    "base_label": ("底分", "Base"),
    "players": ("人数", "Players"),
    "turn_seconds": ("每步秒数（0=不限）", "Seconds per move (0 = none)"),
    "bank_seconds": ("每局备用秒数", "Bank seconds per round"),
    "next_round_seconds": ("局间最多等几秒（0=等大家）", "Seconds between rounds (0 = wait)"),
    "options": ("规则改动 name=value，逗号分隔", "Rule overrides: name=value, comma separated"),
    "bad_number": ("{field}：请输入数字", "{field}: enter a number"),
    "bad_option": ("规则改动有误：{why}", "Bad override: {why}"),
    "advanced": (
        "高级：规则改动 name=value 或 JSON，覆盖上面的选择",
        "Advanced: overrides as name=value or JSON, on top of the choices above",
    ),
    "value_on": ("开", "on"),
    "value_off": ("关", "off"),
    "value_none": ("不限", "none"),
    "changes": ("改动", "Changes"),
    "no_changes": ("与规则相同", "as the preset"),
    "house": ("家规", "House rules"),
    "house_none": ("（不用）", "(none)"),
    "house_save_as": ("存为家规", "Save as"),
    "house_name_hint": ("名字，Ctrl+S 保存", "a name; Ctrl+S saves"),
    "btn_save_house": ("存家规", "Save house"),
    "house_saved": ("已存家规 {name}：{path}", "House rules {name} saved: {path}"),
    "house_loaded": ("已读家规 {name}", "House rules {name} loaded"),
    "house_need_name": ("请先填家规的名字", "Give the house rules a name first"),
    "house_bad": ("家规文件有误：{why}", "Bad house file: {why}"),
    "form_keys": (
        "Tab 下一项 · 空格 开关 · ←→ 选择 · Enter 开桌 · Ctrl+S 存家规 · Esc 取消",
        "Tab next · Space toggles · ←→ picks · Enter creates · Ctrl+S saves house · Esc cancels",
    ),
    "room_title": ("{name}（{preset}）等待开局", "{name} ({preset}) — waiting to start"),
    "room_hint": (
        "四个座位坐满后按 Enter 开始；a 加机器人",
        "Enter starts once four are seated; a adds a bot",
    ),
    "room_level_hint": (
        "v 换机器人水平（现在：{level}）",
        "v changes the bot level (now: {level})",
    ),
    "sit_here": ("坐这里", "Sit here"),
    # settlement
    "settlement": ("第{n}局结算", "Round {n} settlement"),
    "sheet": ("结算", "settlement"),
    "flip": ("翻牌", "Flip"),
    "no_flip": ("不翻牌", "no flip"),
    "no_flip_draw": ("不翻牌（荒庄不翻）", "no flip (none in a 荒庄)"),
    "no_flip_void": ("不翻牌（包牌不翻）", "no flip (none on a 包牌 win)"),
    "no_flip_wall": ("不翻牌（牌墙已空）", "no flip (the wall is empty)"),
    "no_payments_draw": (
        "无人付分：荒庄只由未叫牌的人付给叫牌的人",
        "nobody pays: in a 荒庄 only players not ready pay the ready ones",
    ),
    "no_payments": ("无人付分", "nobody pays"),
    "blown": ("吹风鸡：本局鸡不计分", "吹风鸡 blown away: no chicken scores this round"),
    "flip_makes": ("{tile} → 鸡：{chickens}", "{tile} → chicken: {chickens}"),
    "chickens": ("鸡", "Chickens 鸡"),
    "dou": ("豆", "豆 (kongs)"),
    "payments": ("收付", "Payments"),
    "totals": ("合计", "Totals"),
    "net": ("净", "Net"),
    "ready_yes": ("叫牌", "ready"),
    "ready_no": ("未叫", "not ready"),
    "winner": ("胡", "won"),
    "adds_up": ("✓ 各项相加等于净分", "✓ the lines add up to the nets"),
    "not_adds_up": ("✗ 各项与净分不符", "✗ the lines do not add up to the nets"),
    "fair_ok": ("✓ 发牌已验证", "✓ fair deal verified"),
    "fair_bad": ("✗ 发牌与承诺不符", "✗ the deal does not match its commitment"),
    "close_hint": ("Enter/Esc 关闭", "Enter/Esc closes"),
    "next_hint": (
        "Enter 看完了（准备下一局） · Esc 关闭 · s 再看结算",
        "Enter: ready for the next round · Esc closes · s shows it again",
    ),
    "again_hint": (
        "n 原班人马再来一场 · Enter/Esc 关闭",
        "n: play again with the same seats · Enter/Esc closes",
    ),
    "next_round_in": ("第{n}局 {s} 秒后开始", "Round {n} starts in {s} s"),
    "next_round_wait": ("第{n}局等大家都准备好", "Round {n} starts when everyone is ready"),
    "still_reading": ("还在看：{names}", "still reading: {names}"),
    "you_are_ready": ("你已准备", "you are ready"),
    "enter_ready": ("按 Enter 准备", "Enter when ready"),
    "rematch_wait": ("再来一场：等 {names} 按 n", "Play again: waiting for {names} to press n"),
    "rematch_asked": ("已申请再来一场：等其他人", "Play again asked: waiting for the others"),
    "no_chickens": ("无", "none"),
    "scores_after": ("累计", "Match"),
    "dou_scores": ("计分", "scores"),
    "draw": ("荒庄", "Draw (荒庄)"),
    "payer_payee": ("付 → 收", "payer → payee"),
    "item": ("项", "item"),
    "amount": ("数", "amount"),
    "detail": ("说明", "note"),
    "hands": ("手牌", "Hands"),
    "discarded": ("打", "discarded"),
    "win_mark_zimo": ("自摸", "自摸"),
    "win_mark_discard": ("胡", "胡"),
    "win_mark_rob": ("抢杠", "抢杠"),
    "chicken_mark": ("下划线 = 计鸡的牌", "underlined: tiles counted as chickens"),
    # match summary
    "match_over": ("比赛结束", "Match over"),
    "match_abandoned": ("比赛中止", "Match abandoned"),
    "match_voted": ("投票解散", "Ended by vote"),
    # ending the match together (解散)
    "vote_open": (
        "解散投票：{name}提议按现在的分数结束比赛 · 已同意 {agreed} · 等 {waiting} · {s}秒",
        "Vote to end the match now, {name} proposes · agreed: {agreed} · waiting: {waiting} · {s}s",
    ),
    "vote_keys": ("y 同意 · n 拒绝", "y agree · n refuse"),
    "vote_you_agreed": ("你已同意", "you agreed"),
    "vote_asked": ("已提议解散：等大家同意（30秒）", "Proposed: waiting for everyone (30 s)"),
    "vote_refused": ("{name}拒绝解散：比赛继续", "{name} refused to end the match: play on"),
    "vote_expired": ("解散投票超时：比赛继续", "The vote to end the match ran out: play on"),
    "vote_passed": ("大家同意：比赛投票解散", "Everyone agreed: the match ended by vote"),
    "why_vote_none": ("没有进行中的解散投票", "No vote to end the match is open"),
    "why_vote_playing": (
        "只有比赛进行中才能提议解散",
        "A match is ended by vote only while played",
    ),
    "rounds_played": ("共{n}局", "{n} rounds played"),
    "final": ("名次", "Standings"),
    "per_round": ("每局", "Per round"),
    "new_match": ("再来一场", "play again"),
    # help
    "help": ("帮助", "Help"),
    "keys": ("按键", "Keys"),
    "rules": ("规则摘要", "Rules summary"),
    "tile_mode_ascii": ("牌面：ASCII", "tiles: ASCII"),
    "tile_mode_cjk": ("牌面：中文", "tiles: CJK"),
    # why a key did nothing
    "why_not_creator": (
        "只有开桌的人（1号座）能让座",
        "Only the table's creator (seat 1) hands seats on",
    ),
    "why_nobody_away": ("没有离座的玩家", "No player's seat is away"),
    "hand_seat": ("让座", "hand seat"),
    "hand_seat_title": ("把离座的座位让给一位观战者", "Hand an away seat to a spectator"),
    "hand_seat_to": ("观战者的名字", "Spectator's name"),
    "hand_seat_no_name": ("先写观战者的名字", "Type the spectator's name first"),
    "why_watching": ("你在观战，没有座位", "You are watching: you have no seat here"),
    "why_not_your_turn": ("还没轮到你", "Not your turn yet"),
    "why_nothing_asked": ("现在没有要你做的", "Nothing is asked of you now"),
    "why_answered": ("已回答，等其他人…", "Answered: waiting for the table"),
    "why_claim_asked": ("有人打出牌，你可以：{keys}", "A claim is asked of you: {keys}"),
    "why_no_claim": ("现在没有能碰或胡的牌", "Nothing to claim now"),
    "why_no_pong": ("这张牌你碰不了", "You cannot 碰 this tile"),
    "why_no_hu": ("这张牌胡不了", "This tile does not win for you"),
    "why_no_zimo": ("手牌还没胡：不能自摸", "Your hand is not complete: no 自摸"),
    "why_no_gang": ("现在没有可以杠的牌", "No 杠 now"),
    "why_no_pass": ("没有要过的：空格只用来过碰/胡", "Nothing to pass: space passes a claim"),
    "why_bad_discard": ("这张牌现在不能打", "That tile cannot be discarded now"),
    "why_no_tile": ("键 {k} 下没有牌", "No tile under key {k}"),
    "why_declare_none": ("本桌规则没有报听", "This table's rules have no 报听"),
    "why_declare_first": (
        "报听只能在第一次出牌时宣布",
        "报听 is declared with your first discard only",
    ),
    "why_declare_claimed": ("已有人碰或杠过：不能报听", "报听 only before anyone claims a tile"),
    "why_declare_done": ("你已经报听了", "You have declared 报听 already"),
    "why_declare_not_ready": (
        "打哪张都听不了牌：不能报听",
        "No discard leaves your hand ready: no 报听",
    ),
    "why_no_sheet": ("还没有结算：还没有一局结束", "No settlement yet: no round has ended"),
    "why_new_match_later": (
        "比赛结束后才能按 n 再来一场",
        "n plays again once this match is over",
    ),
    "why_new_match_join": (
        "这场比赛中止了，不能原班再来：在大厅按 c 开一桌",
        "This match was abandoned, so it cannot be played again: in the lobby, c creates a table",
    ),
    "why_bots_before_start": (
        "机器人只能在开局前加减",
        "Bots are added or removed before the start",
    ),
    "why_no_bot": ("没有机器人可以移除", "No bot to remove"),
    "why_start_seats": (
        "四个座位坐满才能开始：按 a 加机器人",
        "Four players are needed: a adds a bot",
    ),
    "why_no_table": ("没有选中的牌桌：按 c 开一桌", "No table selected: c creates one"),
    "why_started": ("这桌已经开始：按 w 观战", "The match at this table has started: w watches it"),
    "why_full": ("这桌已满：按 w 观战", "This table is full: w watches it"),
    "why_finished": ("这桌的比赛已结束", "The match at this table is over"),
    "why_lobby_busy": ("未连接：连上后再试", "Not connected: try again once connected"),
    "key_sit_watch": ("入座/观战", "sit/watch"),
    # leaving mid-match
    "leave_title": ("离开这场比赛？", "Leave the match?"),
    "leave_body": (
        "座位不会让出：你回来之前由机器人托管代打。在大厅选标有“你的座位”的牌桌按 Enter，"
        "或重新运行 zhuoji join，就回到这个座位和手牌。",
        "Your seat is not given up: the bot plays it (托管) until you come back. Pick the table"
        " marked “your seat” in the lobby and press Enter, or start zhuoji join again, to return"
        " to this seat and hand.",
    ),
    "quit_title": ("比赛中退出？", "Quit during the match?"),
    "quit_body": (
        "你回来之前由机器人托管代打这个座位。重新运行 zhuoji join 就回到这个座位和手牌。",
        "The bot plays your seat (托管) until you come back: start zhuoji join again and you are"
        " back at this seat with your hand.",
    ),
    "quit_play_title": ("退出 zhuoji play？", "Quit zhuoji play?"),
    "quit_play_body": (
        "这场比赛会保存：下次运行 zhuoji play 可以接着打（或开新的一场）。",
        "The match is kept: the next zhuoji play offers to resume it (or to start a new one).",
    ),
    "end_play_title": ("结束这场比赛？", "End this match?"),
    "end_play_body": (
        "比赛记为中止，下次不再提供接着打。只想暂停就按 q：比赛会保存。",
        "The match is recorded as abandoned and not offered again. To pause it instead, press"
        " q: the match is kept.",
    ),
    "btn_end": ("结束比赛", "End the match"),
    "btn_stay": ("留下", "Stay"),
    "confirm_hint": ("y 或 Enter 确认 · n 或 Esc 取消", "y or Enter: go ahead · n or Esc: stay"),
    # the replay browser (`zhuoji replay --db`) and the round history (`r`)
    "rp_step": ("第{n}/{total}步", "step {n}/{total}"),
    "rp_round": ("第{n}/{total}局", "round {n}/{total}"),
    "rp_view_all": ("视角：全部手牌", "view: all hands"),
    "rp_view_seat": ("视角：{name}", "view: {name}"),
    "rp_view_watch": ("视角：旁观", "view: spectator"),
    "rp_forward": ("步进", "step"),
    "rp_ends": ("首/尾", "ends"),
    "rp_rounds": ("换局", "round"),
    "rp_view": ("视角", "view"),
    "rp_export": ("导出", "export"),
    "rp_sheet": ("结算", "sheet"),
    "rp_exported": ("已导出牌局脚本：{path}", "deal script written: {path}"),
    "rp_export_failed": ("无法导出：{why}", "cannot export: {why}"),
    "rp_at_start": ("已在开头", "at the start already"),
    "rp_at_end": ("已在结尾", "at the end already"),
    "rp_first_round": ("已是第一局", "this is the first round"),
    "rp_last_round": ("已是最后一局", "this is the last round"),
    "rp_cut_short": ("本局未打完（服务器停止）", "this round was cut short (the server stopped)"),
    "rp_own_view_only": (
        "服务器只发来你自己的视角：换视角和导出需要主机的数据库",
        "the server sent your own view only: other viewpoints and export need the host's database",
    ),
    "rp_asking": ("正在向服务器要这场的牌局…", "asking the server for the match's rounds…"),
    "rp_pick_played": ("回放你打过的比赛", "Replay a match you played"),
    "why_no_played": (
        "你还没有在这台服务器上打完过比赛",
        "you have not finished a match on this server yet",
    ),
    "key_played": ("回放", "replays"),
    "key_records": ("战绩", "records"),
    "rp_browse_key": ("回放", "replay"),
    "rp_no_rounds": ("这场没有存下的局", "no rounds are stored for this match"),
    "rp_pick_match": ("选择一场比赛（Enter 打开，q 退出）", "Pick a match (Enter opens, q quits)"),
    "rp_pick_round": (
        "选择一局（Enter 回放，Esc 返回）",
        "Pick a round (Enter replays, Esc goes back)",
    ),
    "rp_no_matches": ("数据库里没有比赛", "the database holds no matches"),
    "col_table": ("桌号", "table"),
    "col_rules": ("规则", "rules"),
    "col_rounds": ("局数", "rounds"),
    "col_players": ("玩家", "players"),
    "col_dealer": ("庄家", "dealer"),
    "col_result": ("结果", "result"),
    "col_net": ("得分", "net"),
    "state_abandoned": ("已放弃", "abandoned"),
    "state_voted": ("投票解散", "ended by vote"),
    "history": ("牌局记录", "rounds"),
    "why_replay_later": ("比赛结束后才能回放", "the match can be replayed once it is over"),
    "why_replaying": ("已在回放这场比赛", "this match is being replayed already"),
    "history_title": (
        "本场每一局（Enter 查看结算，v 回放，Esc 关闭）",
        "Every round of the match (Enter opens its sheet, v replays, Esc closes)",
    ),
    "history_empty": ("还没有打完的局", "no round has finished yet"),
    "why_no_history": ("还没有打完的局", "no round has finished yet"),
    "res_draw": ("荒庄", "draw (荒庄)"),
    # Who won how, for the round lists: "X 点炮" is read as "X fed the win", so the feeder is
    # the one named with 点炮 (`阿明 胡 ← Bea 点炮`).
    "how_zimo": ("{name} 自摸", "{name} self-drawn"),
    "how_discard": ("{name} 胡 ← {from_name} 点炮", "{name} wins on {from_name}'s discard"),
    "how_rob": ("{name} 抢杠胡 ← {from_name}", "{name} robs {from_name}'s 杠"),
}

# Payment kinds (the `kind` of a payment) → (zh, en).
ITEMS: dict[str, tuple[str, str]] = {
    "hand": ("胡牌", "hand"),
    "repao": ("热炮", "热炮 hot discard"),
    "baopai": ("包牌", "包牌 void win"),
    "dou": ("豆", "豆 kong"),
    "chicken": ("鸡", "鸡 chickens"),
    "baoji": ("包鸡", "包鸡 exposed"),
    "zeren": ("责任鸡", "责任鸡 fed chicken"),
    "chajiao": ("查叫", "查叫 not ready"),
    "baodou": ("包豆", "包豆 kong of a player not ready"),
}

# How a hand was won, after a hand payment's label → (zh, en).
HOW: dict[str, tuple[str, str]] = {
    "zimo": ("自摸", "自摸"),
    "discard": ("点炮", "on discard"),
    "rob": ("抢杠", "抢杠 rob"),
}

# Why a 豆 did not score (`rules.kinds.DouVoid`, as the wire names it) → (zh, en).
DOU_WHY: dict[str, tuple[str, str]] = {
    "not_ready": ("未叫牌", "holder not ready"),
    "hanbao": ("憨包豆不计分", "憨包豆 scores nothing"),
    "repao": ("热炮作废", "voided by 热炮"),
    "quanshao": ("全烧", "全烧: burned"),
}

PATTERNS_EN: dict[str, str] = {
    "平胡": "平胡 plain",
    "大对子": "大对子 all pungs",
    "单钓": "单钓 single wait",
    "七对": "七对 seven pairs",
    "龙七对": "龙七对 dragon pairs",
    "清一色": "清一色 one suit",
    "清大对": "清大对 one-suit pungs",
    "清单钓": "清单钓 one-suit single",
    "清七对": "清七对 one-suit pairs",
    "青龙背": "青龙背 one-suit dragon",
}


# ----- The settlement sheet, worded from the settlement's identifiers (rules/kinds.py) -----
# Each identifier → (zh, en): the Chinese name is the identifier's own (`.zh`); the English
# interface keeps it and adds a gloss.

_GLOSS: dict[str, dict[str, str]] = {
    "PatternKind": {
        "pinghu": "plain",
        "daduizi": "all pungs",
        "dandiao": "single wait",
        "qidui": "seven pairs",
        "longqidui": "dragon pairs",
        "qingyise": "one suit",
        "qingdadui": "one-suit pungs",
        "qingdandiao": "one-suit single",
        "qingqidui": "one-suit pairs",
        "qinglongbei": "one-suit dragon",
        "dilong": "ground dragon",
        "qingdilong": "one-suit ground dragon",
    },
    "BonusKind": {
        "qianggang": "robbed kong",
        "zimo": "self-drawn",
        "gangkai": "kong bloom",
        "repao": "hot discard",
        "tianhu": "heavenly hand",
        "dihu": "earthly hand",
        "baoting": "declared",
        "tianting": "declared at the deal",
        "shabao": "declarer caught",
        "yikouer": "one pays two",
    },
    "ExtraKind": {"dealer": "dealer", "streak": "streak"},
    "ChickenKind": {
        "yaoji": "standing",
        "wuguji": "standing",
        "fanpai": "flipped",
        "yaobai": "swing",
        "benji": "own",
        "xingqi": "weekday",
        "chongfeng": "first out",
        "mendou": "concealed kong",
        "zeren": "fed",
        "baoji": "exposed",
        "jin": "gold",
    },
    "DouKind": {
        "diandou": "kong of a discard",
        "mendou": "concealed kong",
        "zhuanwan": "added kong",
        "hanbao": "dud kong",
    },
}

NAMES: dict[str, tuple[str, str]] = {
    f"{kind.__name__}.{member.value}": (
        member.zh,
        f"{member.zh} {_GLOSS[kind.__name__][member.value]}",
    )
    for kind in (PatternKind, BonusKind, ExtraKind, ChickenKind, DouKind)
    for member in kind
}
"""`PatternKind.pinghu` … → (zh, en); every member of every kind has one (tests check)."""

# How a payment line is worded: `{fields}` filled by `Lang.s(key, ...)`.
SHEET_TEXT: dict[str, tuple[str, str]] = {
    "times": ("（{parts}）×{n}", "({parts}) × {n}"),
    "times_base": ("（{parts}）×底分{n}", "({parts}) × base {n}"),
    "capped": ("{parts}，封顶{n}", "{parts}, capped at {n}"),
    "rob": ("抢杠包三家：{shares}", "抢杠: pays for all three: {shares}"),
    "rob_share": ("替{name}付 {parts}", "for {name}: {parts}"),
    "rob_sep": ("；", "; "),
    "fed_by": ("{dou}（{name}点杠）", "{dou} (fed by {name})"),
    "repao_dou": ("杠后热炮，{dou}作废", "hot discard after {dou}, which is void"),
    "repao_capped": ("{text}，与牌型合计封顶{n}", "{text}, capped at {n} with the hand"),
    "baodou": ("未叫牌，包豆：{dou}", "not ready: pays out its own {dou}"),
    "baoji_lines": ("未叫牌，赔外露的鸡：{lines}", "not ready: pays for exposed chickens: {lines}"),
    "zeren_lines": ("首张被碰杠：{lines}", "first one claimed: {lines}"),
    "chajiao_wait": ("叫牌，最大 {pattern} {n}", "ready, best wait {pattern} {n}"),
    "gold": ("金", "金 gold "),
    "chicken_count": ("{name} {tile}×{count}", "{name} {tile}×{count}"),
    "each": ("，每张{n}", " @{n}"),
    "equals": ("={n}", " = {n}"),
    "line_sep": ("，", " · "),
}


def default_lang() -> str:
    """`zh` when the locale is Chinese, else `en`."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        code = locale.getlocale()[0] or ""
    except ValueError:
        code = ""
    return "zh" if code.lower().startswith("zh") else "en"


_KIND_OF: dict[str, StrEnum] = {
    key: member
    for kind in (PatternKind, BonusKind, ExtraKind, ChickenKind, DouKind)
    for member in kind
    for key in (member.value, member.zh)
}
"""Every identifier of rules/kinds.py, by its value and by its Chinese name."""


class Lang:
    """One interface language; `t(key, **fields)` looks a text up and fills it in."""

    def __init__(self, code: str) -> None:
        self.code = "zh" if code == "zh" else "en"
        self._index = 0 if self.code == "zh" else 1

    def t(self, key: str, **fields: object) -> str:
        pair = TEXT.get(key)
        text = pair[self._index] if pair is not None else key
        return text.format(**fields) if fields else text

    def option(self, key: str) -> str:
        """A table option's name (`benji`, `patterns.dilong`).

        >>> Lang("zh").option("benji"), Lang("en").option("hand_cap")
        ('本鸡', 'Cap 封顶')
        """
        words = OPTION_TEXT.get(key)
        return words[self._index] if words is not None else key

    def option_help(self, key: str) -> str:
        """A table option's one-line explanation."""
        words = OPTION_TEXT.get(key)
        return words[2 + self._index] if words is not None else ""

    def choice(self, key: str, value: object) -> str:
        """One choice of a radio option (`flip_chickens` `both` → 摇摆鸡)."""
        words = CHOICE_TEXT.get((key, value))
        return words[self._index] if words is not None else str(value)

    def group(self, key: str) -> str:
        """A section of the create-table form."""
        words = GROUP_TEXT.get(key)
        return words[self._index] if words is not None else key

    def item(self, item: str) -> str:
        """A payment kind (`hand`, `repao`, `dou`, `chicken`, `zeren`, …) by name.

        >>> Lang("zh").item("zeren"), Lang("en").item("chajiao"), Lang("en").item("new")
        ('责任鸡', '查叫 not ready', 'new')
        """
        pair = ITEMS.get(item)
        return pair[self._index] if pair is not None else item

    def how(self, how: str) -> str:
        """How a hand was won (`zimo`, `discard`, `rob`)."""
        pair = HOW.get(how)
        return pair[self._index] if pair is not None else how

    def dou_why(self, why: str) -> str:
        pair = DOU_WHY.get(why)
        return pair[self._index] if pair is not None else why

    def word(self, thing: str) -> str:
        """A pattern or bonus as the wire names it — an identifier of rules/kinds.py (`zimo`) or
        its Chinese name (`自摸`) — in this language; the one place a wire word becomes a display
        word.

        >>> Lang("zh").word("zimo"), Lang("zh").word("自摸"), Lang("en").word("qidui")
        ('自摸', '自摸', '七对 seven pairs')
        >>> Lang("en").word("新")
        '新'
        """
        kind = _KIND_OF.get(thing)
        return self.name(kind) if kind is not None else self.pattern(thing)

    def pattern(self, name: str) -> str:
        """A pattern's display name (its Chinese name; glossed in English)."""
        return PATTERNS_EN.get(name, name) if self.code == "en" else name

    def name(self, kind: StrEnum) -> str:
        """An identifier of rules/kinds.py by its display name (its own value if unknown).

        >>> Lang("zh").name(PatternKind.QIDUI), Lang("en").name(DouKind.MENDOU)
        ('七对', '闷豆 concealed kong')
        """
        pair = NAMES.get(f"{type(kind).__name__}.{kind.value}")
        return pair[self._index] if pair is not None else str(kind.value)

    def s(self, key: str, **fields: object) -> str:
        """A settlement-sheet wording template (`SHEET_TEXT`), filled in."""
        pair = SHEET_TEXT.get(key)
        text = pair[self._index] if pair is not None else key
        return text.format(**fields) if fields else text
