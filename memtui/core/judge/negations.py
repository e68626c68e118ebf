"""Negated claims (DESIGN §6): one note states the negation or the replacement of what another says.

What a reader sees at once: note B says "NOT Chainlink, Pyth", "Redis was replaced by
Memcached", "we no longer use X", "removed X", "İPTAL: … widget", and note A says the service
"uses the Chainlink oracle", that the session store uses Redis, that the widget is built.  Both
name the thing (*X*), each near its cue: B's X stands in the slot of a negative cue, A's near a
use cue (or a status word: done, built, ✅) in a sentence that negates nothing.  A itself never
negates X (two notes that both say "do NOT use X" agree; a note that corrects itself has changed
its mind) and is no log (what a session or status note says was in use was true that day).

**The lexicon** (:data:`NEGATIVE_CUES`, :data:`STATUS_CUES`, :data:`POSITIVE_CUES`,
:data:`STATUS_POSITIVE`) is prior knowledge of the languages the memory folders are written in —
English, Portuguese, Spanish, Turkish, Japanese, Korean and Chinese — written from knowledge of
those languages, not mined from labelled pairs: negations (NOT X; X, not Y; never/don't use;
não usar, sem; no usar, sin; kullanılmıyor, eklenmeyecek, değil, yok; ではなく, 不要, 〜しない;
사용 안 함, 미사용, 아님; 不使用, 不引入, 而不是), replacements (replaced by, instead of;
substituído por, em vez de; reemplazado por, en lugar de; yerine; 代わりに, から…に移行; 대신;
改为, 取代), "no longer" (artık … değil; もう…ない; 더 이상; 不再; ya no; deixou de), removals and
retractions (removed, dropped, cancelled, reverted, retracted, out of scope; removido, cancelado;
eliminado, descartado; kaldırıldı, çıkarıldı, İPTAL, vazgeçildi, kapsam dışı; 廃止, 削除, 撤回,
中止; 폐기, 철회, 삭제, 취소; 取消, 删除, 废弃, 撤回) and status words that flip (not merged,
unmerged, 미머지, 未実装, 未完成, tamamlanmadı, pendente; ❌ / ✅).  The first version was written
before any pair was read; after reading proposals the lists were completed with the standard
synonyms of each language (çıkarıldı beside kaldırıldı, 不 + each use verb beside 不使用), never by
copying a labelled pair's words.  A cue written as a label ("İPTAL:", "Removed —", a line
"**İPTAL / kapsam dışı:**" over a list) negates each item of the list after it.

**Two rules** decide what is proposed (a pair passes when one of them does):

- :data:`BASE`, fixed before any measure (the issue's own case, not tuned): a plain negation,
  replacement, "no longer" or removal of a *name* — capitals past a sentence's first letter,
  digits or ``_./-`` in it, backticks, a katakana word — the first word of its slot, the phrase
  at most two words, named in at most three files of the root;
- :data:`SETTINGS`, an extension whose constants (:class:`Settings`: cue families, slot windows,
  how rare X is, whether it must look like a name, how much of the negated phrase the other note
  repeats, shared words, overlap) ``bench/tune_contradictions.py`` chooses leave-one-author-group-
  out on the labelled corpora; the choice on every group is the one shipped.

Every proposal is evidence, not a verdict: it quotes both sentences and starts unchecked.

The scan never compares every pair, and reads only what can matter: a file's cue keys are found
through its title + body tokens (one set intersection) and a few substring tests, only the
sentences around them are read, a slot only as far as the rules look; the negated words of the
whole root are gathered, one pass over the token sets finds the files that may hold one (and
counts them), and only those are read for a use of it (:func:`negated_pairs`, exact against
:func:`negated_pairs_brute`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import accumulate
from typing import Collection, Iterable, Sequence

from ..model.snapshot import MemoryFile
from ..model.words import STOP_WORDS, token_list
from ..stores.statcache import cached

# ------------------------------------------------------------------------------ the lexicon

def _forms(*stems: str) -> tuple[str, ...]:
    """The Portuguese and Spanish participle forms of stems: removid → removido, removida, removidos, removidas."""
    return tuple(stem + end for stem in stems for end in ("o", "a", "os", "as"))


NEGATED, NOT, ABSENT = "negated", "not", "absent"
REPLACED, NO_LONGER, REMOVED, STATUS = "replaced", "no-longer", "removed", "status"
FAMILIES = (NEGATED, NOT, ABSENT, REPLACED, NO_LONGER, REMOVED, STATUS)

#: the label a proposal shows for each family: what A says / what B says
LABELS = {
    NEGATED: "uses/NOT", NOT: "uses/not", ABSENT: "uses/without", REPLACED: "uses/replaced",
    NO_LONGER: "uses/no longer", REMOVED: "uses/removed", STATUS: "done/not done",
}

AFTER, BEFORE, BOTH, EITHER = "after", "before", "both", "either"  # where X stands from its cue

# "not only X", "not just X" say X and more, no negation of X
_NOT_ONLY = r"(?!\s+(?:only|just|merely|simply|necessarily|yet|always|all|every|even)\b)"

# (family, slot, keys, pattern).  A pattern is matched case-insensitively within one sentence, and
# only in a sentence holding one of its keys (a whole lower-case ASCII word, else a substring).
# "after": X follows the cue ("NOT X", "replaced X with"); "before": X precedes it ("X was
# removed", "X 폐기", "Xは廃止"); "both": after when anything stands there, else before.  A
# pattern may hold a group ``x`` for an X between two words (Turkish "artık X değil").  ("either": before
# when anything stands there, else after.)
NEGATIVE_CUES: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    # --- English
    (NEGATED, AFTER, ("not", "n't", "n’t", "dont", "never"),
     r"\b(?:do\s+not|don['’]t|dont|never|must\s+not|should\s+not|shouldn['’]t|won['’]t|will\s+not)\s+(?:use|using|add|adopt"
     r"|call|run|deploy|install|enable|rely\s+on|depend\s+on|go\s+with)\b"),
    # "NOT Chainlink, Pyth"; not "NOT:" / "NOT —", Turkish for "Note:"
    (NEGATED, AFTER, ("not",), rf"(?-i:\bNOT\b)(?!\s*(?:[:：]|[-–—]\s)){_NOT_ONLY}(?:\s+(?:using|use|via|the))?"),
    # "Pyth, not Chainlink"
    (NEGATED, AFTER, ("not",), rf"(?:,|\(|—|–)\s*not{_NOT_ONLY}\s+(?:using\s+|use\s+|via\s+|the\s+)?"),
    (NEGATED, BOTH, ("not",), r"\bnot\s+(?P<x>[^,.;:()]{1,40}?)\s*,?\s+but\b"),  # "not Chainlink but Pyth"
    (NEGATED, BEFORE, ("not", "n't", "n’t"),
     r"(?:\bnot|n['’]t)\s+(?:used|needed|required|in\s+use|allowed|wanted|supported|an\s+option|part\s+of)\b"),
    (NEGATED, BEFORE, ("unused",), r"\bunused\b"),
    (NEGATED, AFTER, ("avoid", "avoids", "avoided", "avoiding"), r"\bavoid(?:s|ed|ing)?\b"),
    (NOT, AFTER, ("not",),
     r"\bnot\s+(?:using\s+|use\s+|via\s+|through\s+|on\s+|with\s+|the\s+)?(?!(?:only|just|yet|sure|necessarily"
     r"|always|all|every|much|many|really|quite|too|very|because|that|if|when|to|a|an|be|been|being|in|at|for|of|so"
     r"|as|any|anymore|more|longer)\b)"),
    (ABSENT, AFTER, ("without", "no"),
     r"\bwithout\b|\bno\s+(?!(?:longer|more|need|one|matter|way|problem|issues?|changes?|idea|further|action|new"
     r"|other|real)\b)"),
    (REPLACED, AFTER, ("rather",), r"\brather\s+than\b"),
    (REPLACED, AFTER, ("replaced", "replace", "replaces", "replacing", "swapped", "swap"),
     r"\b(?:replaced|replace|replaces|replacing|swapped|swap)\b(?!\s+(?:by|with)\b)"),
    (REPLACED, BEFORE, ("replaced", "superseded", "swapped", "obsoleted"),
     r"\b(?:replaced|superseded|swapped\s+out|obsoleted)\s+(?:by|with)\b"),
    (REPLACED, AFTER, ("switched", "switching", "migrated", "migrating", "moved", "moving"),
     r"\b(?:switched|switching|migrated|migrating|moved|moving)\s+(?:away\s+)?(?:from|off)\b"),
    (REPLACED, AFTER, ("instead", "place", "lieu"), r"\b(?:instead\s+of|in\s+place\s+of|in\s+lieu\s+of)\b"),
    (NO_LONGER, AFTER, ("longer",),
     r"\bno\s+longer(?:\s+(?:use[sd]?|using|need(?:s|ed)?|ha(?:ve|s)|support(?:s|ed)?|runs?|calls?|depends?\s+on"
     r"|rel(?:y|ies)\s+on|deploy(?:s|ed)?|ship(?:s|ped)?))?\b"),
    (NO_LONGER, BEFORE, ("longer",), r"\bno\s+longer\b"),
    (NO_LONGER, AFTER, ("stop", "stopped", "quit"), r"\b(?:stop(?:ped)?|quit)\s+using\b"),
    (NO_LONGER, BEFORE, ("not", "n't", "n’t"),
     r"(?:\bnot|n['’]t)\s+(?:\w+\s+)?any\s?more\b"),
    (REMOVED, AFTER, ("removed", "dropped", "deleted", "cancelled", "canceled", "retired", "deprecated", "abandoned",
                      "scrapped", "ditched", "reverted", "rolled", "killed", "decommissioned", "disabled", "withdrew",
                      "retracted", "rejected", "discarded", "rid", "ripped", "backed", "decided", "ruled", "gave",
                      "discontinued", "shelved", "phased", "sunset", "sunsetted"),
     r"\b(?:removed|dropped|deleted|cancel(?:l)?ed|retired|deprecated|abandoned|scrapped|ditched|reverted"
     r"|rolled\s+back|killed|decommissioned|disabled|withdrew|retracted|rejected|discarded|got\s+rid\s+of"
     r"|ripped\s+out|backed\s+out|decided\s+against|ruled\s+out|gave\s+up(?:\s+on)?|discontinued|shelved"
     r"|phased\s+out|sunset(?:ted)?)\b"),
    (REMOVED, BEFORE, ("removed", "dropped", "deleted", "cancelled", "canceled", "retired", "deprecated", "abandoned",
                       "scrapped", "reverted", "rolled", "decommissioned", "withdrawn", "retracted", "rejected",
                       "discarded", "gone", "reversed", "revoked", "overturned", "discontinued", "shelved", "phased",
                       "scope"),
     r"\b(?:removed|dropped|deleted|cancel(?:l)?ed|retired|deprecated|abandoned|scrapped|reverted|rolled\s+back"
     r"|decommissioned|withdrawn|retracted|rejected|discarded|gone|reversed|revoked|overturned|discontinued|shelved"
     r"|phased\s+out|out\s+of\s+scope)\b"),
    # --- Portuguese
    (NEGATED, AFTER, ("não",), r"\bnão\s+(?:usa|usar|usamos|usem|use|utiliza|utilizar|utilizamos|adicionar|chamar)\b"),
    (NEGATED, AFTER, ("nunca",), r"\bnunca\b"),
    (ABSENT, AFTER, ("sem",), r"\bsem\b"),
    (NEGATED, BEFORE, ("não",), r"\bnão\s+(?:é\s+)?(?:usad[oa]s?|utilizad[oa]s?|necessári[oa]s?|suportad[oa]s?)\b"),
    (REPLACED, BEFORE, ("substituíd", *_forms("trocad")), r"\b(?:substituíd[oa]s?|trocad[oa]s?)\s+(?:por|pel[oa])\b"),
    (REPLACED, AFTER, ("vez", "invés", "lugar", *_forms("migrad"), "migrou", "migramos"),
     r"\b(?:em\s+vez\s+de|ao\s+invés\s+de|no\s+lugar\s+de|migr(?:ad[oa]|ou|amos)\s+d[eoa])\b"),
    (NO_LONGER, AFTER, ("deixou", "deixamos", "deixaram", "mais"),
     r"\b(?:deix(?:ou|amos|aram)\s+de(?:\s+usar)?|não\s+(?:usa|usamos|é)\s+mais)\b"),
    (REMOVED, BOTH, ("excluíd", "escopo", *_forms("removid", "cancelad", "descontinuad", "abandonad", "revertid",
                                           "descartad", "depreciad", "obsolet", "desativad", "suspens")),
     r"\b(?:removid[oa]s?|cancelad[oa]s?|descontinuad[oa]s?|abandonad[oa]s?|revertid[oa]s?|excluíd[oa]s?"
     r"|descartad[oa]s?|depreciad[oa]s?|obsolet[oa]s?|desativad[oa]s?|suspens[oa]s?|fora\s+do\s+escopo)\b"),
    # --- Spanish
    (NEGATED, AFTER, ("usa", "usar", "usamos", "usen", "utiliza", "utilizar", "utilizamos"),
     r"\bno\s+(?:usa|usar|usamos|usen|utiliza|utilizar|utilizamos|se\s+usa)\b"),
    (ABSENT, AFTER, ("sin",), r"\bsin\b"),
    (REPLACED, BEFORE, _forms("reemplazad", "sustituid", "cambiad"),
     r"\b(?:reemplazad[oa]s?|sustituid[oa]s?|cambiad[oa]s?)\s+por\b"),
    (REPLACED, AFTER, ("lugar", "vez"), r"\ben\s+(?:lugar|vez)\s+de\b"),
    (NO_LONGER, AFTER, ("usa", "usamos", "usan", "utiliza", "utilizamos", "dejó", "dejamos", "dejaron"),
     r"\b(?:ya\s+no\s+(?:usa|usamos|usan|se\s+usa|utiliza|utilizamos)|dej(?:ó|amos|aron)\s+de(?:\s+usar)?)\b"),
    (REMOVED, BOTH, ("alcance", *_forms("eliminad", "descartad", "retirad", "desactivad", "quitad", "borrad",
                                        "suspendid")),
     r"\b(?:eliminad[oa]s?|descartad[oa]s?|retirad[oa]s?|desactivad[oa]s?|quitad[oa]s?|borrad[oa]s?"
     r"|suspendid[oa]s?|fuera\s+de(?:l)?\s+alcance)\b"),
    # --- Turkish (the negated thing comes first: "X kaldırıldı", "X yerine Y", "artık X değil")
    (NO_LONGER, BOTH, ("artık",), r"\bartık\s+(?P<x>[^.,;:]{1,60}?)\s*(?:değil|yok|kullanılmıyor|kullanılmayacak"
                                  r"|gerekmiyor|yapılmıyor|yapılmayacak)"),
    (NEGATED, BEFORE, ("kullanılm", "kullanma", "kullanmaz", "eklenm", "eklenmeyecek", "eklemeyecek", "eklenmez",
                       "eklemez", "yapılm", "uygulanm", "gerekmiyor", "gereksiz"),
     r"(?:\bkullanıl?m(?:ıyor|ayacak|az|amalı)\w*|\beklen?m(?:eyecek|iyor|ez|emeli)\w*|\byapılm(?:ayacak|ıyor|amalı)\w*"
     r"|\buygulanm(?:ayacak|ıyor)\w*|\bgerekmiyor\b|\bgereksiz\b|\bkullanma\b)"),
    (NOT, BEFORE, ("değil",), r"\bdeğil\b"),
    (ABSENT, BEFORE, ("yok",), r"\byok\b"),
    (REPLACED, BEFORE, ("yerine",), r"\byerine\b"),
    (REMOVED, BEFORE, ("kaldırıl", "çıkarıl", "iptal", "İptal", "İPTAL", "silindi", "vazgeçil", "alındı", "terk",
                       "bırakıldı", "devre", "durduruldu", "kapatıldı", "reddedildi", "kapsam"),
     r"(?:\b(?:kaldırıl|çıkarıl)(?:dı|acak|mış|mıştır|ır)\w*|(?:\biptal|İPTAL|İptal)\b(?:\s+(?:edildi|edilmiştir"
     r"|edilecek))?|\bsilindi\b|\bvazgeçil(?:di|miştir)\b|\b(?:geri|askıya)\s+alındı\b|\bterk\s+edildi\b"
     r"|\bbırakıldı\b|\bdevre\s+dışı\b|\bdurduruldu\b|\bkapatıldı\b|\breddedildi\b|\bkapsam\s+dışı\b)"),
    # --- Japanese (X first: "Xは廃止", "Xではなく")
    (NEGATED, BEFORE, ("なく", "不要", "禁止", "不使用", "不採用", "ない", "ません", "ず"),
     r"(?:ではなく|じゃなく|でなく|不要|禁止|不使用|不採用"
     r"|(?:使わ|[\u4e00-\u9fff]{2}し)(?:ない|ません|ず))"),  # 使わない, 使用しない, 導入しない, 対応しません
    (REPLACED, BEFORE, ("代わ", "代え", "から"),
     r"(?:の代わりに|に代わって|に代えて|から[^\s、。]{0,20}?(?:に|へ)(?:移行|変更|置き換|切り替|乗り換))"),
    (NO_LONGER, BEFORE, ("もう", "もはや"), r"(?:もう|もはや)(?:使わない|使用しない|不要|必要ない|ない)"),
    (REMOVED, BOTH, ("廃止", "削除", "中止", "撤回", "取りやめ", "取り止め", "廃棄", "撤去", "取り消し", "却下",
                     "見送り", "ボツ", "無効化", "非推奨", "停止", "凍結", "対象外"),
     r"(?:廃止|削除|中止|撤回|取りやめ|取り止め|廃棄|撤去|取り消し|却下|見送り|ボツ|無効化|非推奨|停止|凍結|対象外)"),
    # --- Korean (X first: "X 폐기", "X 대신")
    (NEGATED, BEFORE, ("사용", "이용", "적용", "채택", "도입", "추가", "구현", "지원", "미", "불필요", "금지",
                       "아니라"),
     r"(?:(?:사용|이용|적용|채택|도입|추가|구현|지원)\s*(?:안\s*함|안함|하지\s*않|금지|불가)|미(?:사용|적용|도입|지원)"
     r"|불필요|금지|아니라)"),
    (NOT, BEFORE, ("아님", "않"), r"(?:아님|(?:[\uac00-\ud7af]*지\s*)?않(?:음|는다|습니다|기로))"),  # the verb too
    (REPLACED, BEFORE, ("대신", "에서"),
     r"(?:대신(?:에)?|에서\s*[^\s.,]{0,20}?\s*(?:으로|로)\s*(?:교체|변경|전환|대체|이전))"),
    (NO_LONGER, BEFORE, ("이상",), r"더\s*이상"),
    (REMOVED, BOTH, ("폐기", "철회", "삭제", "제거", "취소", "중단", "중지", "폐지", "롤백", "되돌림", "비활성화",
                     "제외", "범위"),
     r"(?:폐기|철회|삭제|제거|취소|중단|중지|폐지|롤백|되돌림|비활성화|제외|범위\s*(?:밖|외))"),
    # --- Chinese (X after the verb: "取消X", "不再使用X"; before "已"/"被": "X已废弃")
    (NEGATED, AFTER, ("不", "无需", "無需", "禁止", "而不是", "而非"),
     r"(?:(?:不|不要|禁止|无需|無需)(?:使用|用|采用|採用|引入|启用|啟用|接入|依赖|依賴|集成|加入|考虑|考慮|做)|不需要|无需|無需"
     r"|而不是|而非)"),
    (NOT, AFTER, ("不是",), r"不是"),
    (REPLACED, BEFORE, ("改为", "改成", "换成", "換成", "改用"), r"(?:改为|改成|换成|換成|改用)"),
    (REPLACED, AFTER, ("替换", "替換", "取代", "代替"), r"(?:替换|替換|取代|代替)"),
    (NO_LONGER, BOTH, ("不再",), r"不再(?:使用|用|需要|支持|采用|依赖|依賴)?"),
    (REMOVED, BOTH, ("取消", "删除", "刪除", "移除", "废弃", "廢棄", "弃用", "棄用", "放弃", "放棄", "撤回", "停用",
                     "下线", "下線", "回滚", "废除", "去掉", "砍掉", "排除", "搁置", "擱置", "否决", "否決"),
     r"(?:(?:已|被|已经|已經)?(?:取消|删除|刪除|移除|废弃|廢棄|弃用|棄用|放弃|放棄|撤回|停用|下线|下線|回滚|废除|去掉|砍掉"
     r"|排除|搁置|擱置|否决|否決))"),
    (REMOVED, BEFORE, ("~~",), r"~~(?P<x>[^~]{1,80})~~"),  # struck through, in any language
)

# Status words that flip: the negative side ("T31: not merged", "미머지", "未実装", ❌) and the
# positive ("merged", "완료", "実装済み", ✅).  X stands before the word, else after it.
STATUS_CUES: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    (STATUS, EITHER, ("not", "unmerged", "unimplemented", "undeployed", "unreleased", "unfinished", "incomplete",
                      "unfixed"),
     r"\bnot\s+(?:yet\s+)?(?:done|merged|deployed|implemented|shipped|released|finished|complete[d]?|live|fixed"
     r"|applied|integrated)\b|\b(?:unmerged|unimplemented|undeployed|unreleased|unfinished|incomplete|unfixed)\b"),
    (STATUS, EITHER, ("❌", "✗", "✘"), r"❌|✗|✘"),
    (STATUS, EITHER, ("미", "未"),
     r"미머지|미구현|미완료|미배포|미적용|미반영|미해결|미착수|未実装|未完了|未対応|未マージ|未着手|未デプロイ|未反映|未解決"
     r"|未完成|未实现|未實現|未合并|未合併|未部署|未上线|未修复"),
    (STATUS, EITHER, ("tamamlanmadı", "yapılmadı", "uygulanmadı", "edilmedi", "bitmedi"),
     r"\b(?:tamamlanmadı|yapılmadı|uygulanmadı|(?:merge|deploy)\s+edilmedi|bitmedi)\b"),
    (STATUS, EITHER, ("não", "pendente", "pendiente", "no", "sin"),
     r"\bnão\s+(?:implementad[oa]|concluíd[oa]|feit[oa]|mergead[oa])\b|\bpendiente\b|\bpendente\b"
     r"|\bno\s+(?:implementad[oa]|completad[oa]|terminad[oa])\b|\bsin\s+(?:implementar|terminar)\b"),
)
STATUS_POSITIVE = (
    r"\b(?:done|merged|deployed|implemented|shipped|released|finished|completed?|fixed)\b|✅|✔|✓"
    r"|완료|머지됨|구현됨|배포됨|完了|実装済み?|マージ済み?|対応済み?|デプロイ済み?|已完成|已实现|已實現|已合并|已合併|已部署|已上线"
    r"|已修复|\btamamlandı\b|\byapıldı\b|\buygulandı\b|\bkuruldu\b|\b(?:merge|deploy)\s+edildi\b|\bbitti\b"
    r"|\b(?:built|landed)\b"
    r"|\b(?:concluíd[oa]|implementad[oa]|mergead[oa]|completad[oa]|terminad[oa])\b"
)

# Use cues: a sentence that says X is in use ("uses X", "built on X", "X 사용", "Xを使用").
POSITIVE_CUES = (
    r"\b(?:use[sd]?|using|utili[sz](?:e[sd]?|ing)|built\s+(?:with|on)|based\s+on|powered\s+by|runs?\s+on|running\s+on"
    r"|rel(?:y|ies)\s+on|depends?\s+on|backed\s+by|via|adopt(?:s|ed)?|chose|chosen|picked|selected|switch(?:ed)?\s+to"
    r"|migrat(?:ed|e)\s+to|moved\s+to|implemented|added|enabled|integrated|introduced|installed|configured|keep|kept"
    r"|in\s+use|go(?:ing)?\s+with|went\s+with|stack)\b"
    r"|\b(?:usa[rm]?|usando|utiliza[rmn]?|utilizando|baseado\s+em|basado\s+en|adotad[oa]|adoptad[oa]|escolhid[oa]"
    r"|elegid[oa]|implementad[oa]|adicionad[oa]|añadid[oa]|integrad[oa])\b"
    r"|\bkullan(?!m[ıa])(?:ıl)?(?!m[ıa])\w*|\beklendi\b|\buygulandı\b|\bentegre\b|\btercih\b|\bseçildi\b|\büzerinden\b"
    r"|使用|使う|使って|使い|利用|採用|導入|経由|ベース|で構築|を用い|用いる|사용|이용|적용|채택|도입|기반|통해|쓰는|씀"
    r"|采用|基于|基於|依赖|依賴|引入|启用|啟用|通过|通過|接入"
)

_FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class _Cue:
    family: str
    slot: str
    keys: tuple[str, ...]
    pattern: re.Pattern[str]


_CUES = tuple(_Cue(family, slot, keys, re.compile(pattern, _FLAGS))
              for family, slot, keys, pattern in NEGATIVE_CUES + STATUS_CUES)
# A cue is tried only in a text holding one of its keys: the ASCII letter words through one set
# intersection with the text's words, the others (another script, a symbol) as substrings, and
# those only in a text that is not ASCII.
_WORD_KEYS: dict[str, list[int]] = {}
_OTHER_KEYS: dict[str, list[int]] = {}
for _k, _cue in enumerate(_CUES):
    for _key in _cue.keys:
        table = _WORD_KEYS if _key.isascii() and _key.isalpha() else _OTHER_KEYS
        table.setdefault(_key.lower() if table is _WORD_KEYS else _key, []).append(_k)
# a Turkish key written in capitals folds to ASCII ("YAPILDI".lower() is "yapildi"): look for that too
for _key, _ids in list(_OTHER_KEYS.items()):
    _folded = _key.replace("ı", "i").replace("İ", "i").lower()
    if _folded != _key and _folded.isascii():
        _OTHER_KEYS.setdefault(_folded, []).extend(_ids)
_MARK_KEYS = frozenset(key for cue in _CUES for key in cue.keys if key.isascii() and not key.isalpha())
_WORD_KEY_SET = frozenset(_WORD_KEYS)
_LETTERS_ONLY = bytes(c if chr(c).isalpha() else 32 for c in range(256))
_LETTER_RUN = re.compile(r"[^\W\d_]+")

_STATUS_POSITIVE = re.compile(STATUS_POSITIVE, _FLAGS)
_POSITIVE = re.compile(POSITIVE_CUES, _FLAGS)
# a use cue right after a negation is none ("不使用", "사용 안 함", "使用しない" are negations)
_NEGATED_USE = re.compile(r"(?:不|未|没|沒|停|弃|棄|禁|미|불)$")
_USE_NEGATED_AFTER = re.compile(r"^\s*(?:しない|せず|しません|ない|하지\s*않|안\s*함|안함|금지|중단|m[ıa])")

# What ends a slot: X is the thing right by the cue, not the rest of its sentence — a mark, or a
# joining word or preposition (a set lookup per word: an alternation of them in ``re`` tried at
# every position costs tens of microseconds a sentence).  Going back from a cue, the auxiliaries
# ("X was removed", "X is not used") and parentheses ("Gerçek push (FCM/APNs) eklenmeyecek") do not.
_STOP_MARK_AFTER = re.compile(r"[,;:()\[\]|—–→=]")  # and " - "
_STOP_MARK_BEFORE = re.compile(r"[,;:\[\]|—–→=]")
_PUNCTUATION = "\"'“”‘’`*_.!?()<>{}[]"
_STOP_WORDS_BEFORE = frozenset(
    "but and or with by to for because since so than instead yet if when until unless as from in on at into after "
    "before during inside outside within onto through throughout across over under about upon between among "
    "e ou mas por com para porque y o pero con ve ama ile için".split()
)
_STOP_WORDS_AFTER = _STOP_WORDS_BEFORE | {"is", "are", "was", "were", "has", "have", "had", "be", "been"}

# A cue written as a label ("İPTAL: A, B, widget", "Never use - `pm2 restart --update-env`",
# "Removed — X"): what follows it is a list of the things negated, each an X of its own.
_LABEL = re.compile(r"\s*(?:\*\*|__)?\s*(?:[:：]|\s[-–—→]\s|[–—→])\s*")
_LIST_END = re.compile(r"\s[-–—]\s|[.!?。！？]")
_ITEM = re.compile(r"[,;:、，；：/]|\s(?:and|or|ve|veya|e|ou|y|o|및)\s", _FLAGS)
LIST_ITEMS = 12  # items of a labelled list read at most
# A line that is only a label ("**İPTAL / kapsam dışı (geri açma):**", "## Removed", "Not used:")
# negates the bullets under it.
_SECTION = re.compile(r"^\s*(?:#{1,6}\s+(?P<heading>.+?)|(?:[-*+]\s+)?(?P<label>[^:：]{1,80}?)\s*(?:\*\*|__)?\s*[:：]"
                      r"\s*(?:\*\*|__)?)\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?P<item>.+)$")
LABEL_WORDS = 8  # a label line holds at most this many words
SECTION_BULLETS = 20  # bullets under a label read at most
_SENTENCE = re.compile(r"(?<=[.!?])\s+|[\n。！？]")
_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"#{1,6}\s")  # a Markdown heading line
_WORD = re.compile(r"`[^`\n]{1,80}`|[^\s`,;:()\[\]|\"“”'‘’*!?<>{}]+")
# the pieces of one written word: a name of letters, digits and ``_./-`` (``Notepad.tsx``,
# ``prisma/schema.prisma``, ``non-null``), a run of Han or katakana (hiragana, the particles and
# verb endings of Japanese, part them), a Hangul word
_PIECE = re.compile(
    r"[^\W_\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af](?:[\w./\-]*[^\W_\u3040-\u30ff\u3400-\u9fff"
    r"\uf900-\ufaff\uac00-\ud7af])?|[\u30a0-\u30ff\u3400-\u9fff\uf900-\ufaff]+|[\uac00-\ud7af]+"
)
_KOREAN_PARTICLE = re.compile("(?:에서|으로|까지|부터|처럼|보다|은|는|이|가|을|를|의|에|로|도|와|과|만)$")
_NAME_SHAPE = re.compile(r"[A-Z]|[0-9_./\-]")
_KATAKANA = re.compile("[\u30a0-\u30ff]{2,}")  # a loanword or a product name; Han and Hangul words are common nouns
_OTHER_SCRIPT = re.compile("[\u30a0-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")

#: words that say how, not what: never the negated thing itself
FILLER = frozenset(
    """
    removed dropped deleted cancelled canceled retired deprecated abandoned scrapped reverted replaced replace
    replaces replacing superseded longer anymore instead rather favor favour need needed needs required thing
    things stuff option options approach way ways feature features code file files step steps part new old
    current currently anything something everything nothing now already still yet done merged deployed
    fixed working work works available possible necessary allowed supported sure really actually
    also even just only please note important here there able default set like same different change changes
    changed case cases time times see per mode value values data type types kind point first last next
    """.split()
)

MAX_SENTENCE = 400  # characters of a sentence kept for the quote


@dataclass(frozen=True)
class Term:
    """One word of a slot: the word, how many words stand between it and the cue, its shape."""

    word: str
    distance: int
    named: bool  # looks like a name: capitals, digits, ``_./-``, backticks, a katakana word


@dataclass(frozen=True)
class NegClaim:
    """One negative cue said in a file, with the words it negates."""

    family: str
    terms: tuple[Term, ...]  # nearest the cue first
    sentence: str
    cue: str
    phrase: tuple[str, ...] = ()  # the slot's words in the order they are written


@dataclass(frozen=True)
class Mention:
    """One sentence of a file that says a word is in use (or, for status, done)."""

    word: str
    distance: int
    status: bool  # a status word (done, merged, ✅), not a use cue
    sentence: str
    words: tuple[str, ...] = ()  # the sentence's words in the order they are written
    prescribes: bool = False  # the sentence prescribes (:data:`_PRESCRIBES`): a rule, not a report


def span(phrase: Sequence[str], word: str, words: Sequence[str]) -> int:
    """How many words of the negated ``phrase``, ``word`` among them, the other sentence's
    ``words`` repeat in one run ("not named imports" / "use named imports": 2)."""
    return len(shared_run(phrase, word, words))


def shared_run(phrase: Sequence[str], word: str, words: Sequence[str]) -> tuple[str, ...]:
    """The longest run of the negated ``phrase`` holding ``word`` that ``words`` repeat in order."""
    best: tuple[str, ...] = ()
    for i, w in enumerate(phrase):
        if w != word:
            continue
        for k, v in enumerate(words):
            if v != word:
                continue
            left = 0
            while i - left > 0 and k - left > 0 and phrase[i - left - 1] == words[k - left - 1]:
                left += 1
            right = 0
            while (i + right + 1 < len(phrase) and k + right + 1 < len(words)
                   and phrase[i + right + 1] == words[k + right + 1]):
                right += 1
            if left + 1 + right > len(best):
                best = tuple(phrase[i - left : i + right + 1])
    return best


# ------------------------------------------------------------------------------ sentences


def sentences(f: MemoryFile, headings: bool = True) -> list[str]:
    """The file's title, description and body sentences (fenced code left out), each stripped of
    Markdown list, quote and heading marks; without ``headings``, the body's headings left out
    (a heading names the section it opens — "Shell injection via $EDITOR" — and says nothing is
    in use)."""
    body = _FENCE.sub("\n", f.body)
    out = [f.title, f.description]
    for piece in _SENTENCE.split(body):
        piece = piece.strip()
        if not headings and _HEADING.match(piece):
            continue
        piece = piece.lstrip("#>*-+ \t").strip()
        if piece and piece != "---":
            out.append(piece)
    return [s for s in out if s]


@cache
def _key_tables(families: frozenset[str]) -> tuple[tuple[str, ...], dict[str, list[int]], dict[str, list[int]],
                                                   dict[str, list[int]]]:
    """The keys of the cues of ``families``: the ASCII letter words (as a tuple, to test as
    substrings first), and the word keys, the other keys and the other keys that are ASCII,
    each with those cues only."""
    wanted = _family_cues(families)
    words = {key: [k for k in ids if k in wanted] for key, ids in _WORD_KEYS.items()}
    others = {key: [k for k in ids if k in wanted] for key, ids in _OTHER_KEYS.items()}
    words = {key: ids for key, ids in words.items() if ids}
    others = {key: ids for key, ids in others.items() if ids}
    # an ASCII text holds none of the other scripts' keys; the capital-folded Turkish ones
    # ("YAPILDI" lowers to "yapildi") are left to texts with a Turkish letter in them
    return tuple(words), words, others, {key: ids for key, ids in others.items() if key.isascii() and key in _MARK_KEYS}


@cache
def _stems(word_keys: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The key words under their first four letters: one substring test rules out a whole stem
    ("replac…", "migra…")."""
    out: dict[str, list[str]] = {}
    for key in word_keys:
        out.setdefault(key[:4], []).append(key)
    return tuple((stem, tuple(keys)) for stem, keys in out.items())


def _keys_in(text: str, families: frozenset[str] = frozenset(FAMILIES)) -> dict[str, list[int]]:
    """The keys a text holds, each with its cues (indices of ``_CUES``) of ``families``.

    An ASCII key word is first looked for as a substring ("not" is in "note" too), and only a
    text holding one is split into its words: most texts hold none."""
    low = text.lower()
    word_keys, words_table, others, ascii_others = _key_tables(families)
    out: dict[str, list[int]] = {}
    if low.isascii():
        present = [k for stem, keys in _stems(word_keys) if stem in low for k in keys if k in low]
        if present:
            data = set(low.encode("ascii").translate(_LETTERS_ONLY).split())
            out = {k: words_table[k] for k in present if k.encode("ascii") in data}
        for key, found in ascii_others.items():
            if key in low:
                out[key] = found
    else:
        present = [k for k in word_keys if k in low]
        if present:
            words = set(_LETTER_RUN.findall(low))
            out = {k: words_table[k] for k in present if k in words}
        for key, found in others.items():
            if key in low or key in text:
                out[key] = found
    return out


def _cues_in(text: str, among: dict[str, list[int]] | None = None) -> list[int]:
    """The cues whose keys a text holds, in order; with ``among`` (the keys of a text holding this
    one, which are few), only those, looked for one by one."""
    if among is None:
        return sorted({k for ids in _keys_in(text).values() for k in ids})
    low = text.lower()
    return sorted({k for key, ids in among.items()
                   if (key in low or key in text) and (key not in _WORD_KEYS or _has_word(key, low)) for k in ids})


@cache
def _word_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W\d_]){re.escape(key)}(?![^\W\d_])")


def _has_word(key: str, low: str) -> bool:
    """Whether a lower-cased text holds ``key`` as a whole word (letters on neither side)."""
    return _word_pattern(key).search(low) is not None


def _words(text: str, opening: bool = False, limit: int = 0) -> list[tuple[str, bool]]:
    """(word, named) for each word of a stretch of text, in order: a name whole (lower-cased,
    its identifier marks kept), a Japanese or Chinese run, a Korean word less its particle;
    fillers, stop words, numbers and words of fewer than 3 letters (2 in another script) left out.
    A word is *named* when it looks like a name: a capital, a digit or ``_./-`` in it, written in
    backticks, or a katakana word (a loanword or a product name in Japanese).  With ``opening``
    (the text starts a sentence or a list item) the first word's leading capital is no sign.
    With ``limit``, reading stops after ``limit`` words (enough to know a phrase is too long)."""
    out: list[tuple[str, bool]] = []
    lead = len(text) - len(text.lstrip(" *_#>-\t")) if opening else -1  # where the first word starts
    for m in _WORD.finditer(text):
        written = m.group()
        first = m.start() <= lead
        if written.isascii() and written.isalnum():  # a plain word: no regex needed
            word = written.lower()
            if len(word) < 3 or word in FILLER or word in STOP_WORDS or word.isdigit():
                continue
            shape = written[1:] if first else written
            out.append((word, not shape.isalpha() or not shape.islower()))
            if limit and len(out) >= limit:
                return out
            continue
        quoted = written.startswith("`")
        for piece in _PIECE.findall(written.strip("`")):
            other = bool(_OTHER_SCRIPT.match(piece))
            if other and "\uac00" <= piece[0] <= "\ud7af":
                piece = _KOREAN_PARTICLE.sub("", piece)
            word = piece.lower()
            if len(word) < (2 if other else 3) or word in FILLER or word in STOP_WORDS or not token_list(word):
                continue
            shape = piece[1:] if first else piece
            out.append((word, quoted or bool(_NAME_SHAPE.search(shape)) or bool(_KATAKANA.fullmatch(piece))))
            if limit and len(out) >= limit:
                return out
    return out


@lru_cache(maxsize=65536)
def word_tokens(word: str) -> frozenset[str]:
    """The tokens of one word (as :func:`memtui.core.model.words.token_list` makes them): a file holds
    the word only if its title + body tokens hold them all."""
    return frozenset(token_list(word))


SLOT_WORDS = 6  # a slot is read this many written words deep (no setting looks further)


def _slot_after(sentence: str, end: int) -> str:
    """The words after a cue up to a mark or a joining word, at most ``SLOT_WORDS`` of them."""
    rest = sentence[end:]
    mark = _STOP_MARK_AFTER.search(rest)
    stop = mark.start() if mark else len(rest)
    dash = rest.find(" - ", 0, stop)
    if dash >= 0:
        stop = dash
    out = []
    for piece in rest[:stop].split(None, SLOT_WORDS)[:SLOT_WORDS]:
        if piece.strip(_PUNCTUATION).lower() in _STOP_WORDS_AFTER:
            break
        out.append(piece)
    return " ".join(out)


def _slot_before(sentence: str, start: int) -> str:
    """The words before a cue back to a mark or a joining word, at most ``SLOT_WORDS`` of them."""
    pieces = sentence[:start].rsplit(None, SLOT_WORDS + 1)
    if len(pieces) > SLOT_WORDS:
        pieces = pieces[-SLOT_WORDS:]
    region = " ".join(pieces)
    marks = [m.end() for m in _STOP_MARK_BEFORE.finditer(region)]
    dash = region.rfind(" - ")
    begin = max(marks[-1] if marks else 0, dash + 3 if dash >= 0 else 0)
    out: list[str] = []
    for piece in reversed(region[begin:].split()):
        if piece.strip(_PUNCTUATION).lower() in _STOP_WORDS_BEFORE:
            break
        out.append(piece)
    return " ".join(reversed(out))


def _opens(sentence: str, slot: str) -> bool:
    """Whether a slot taken before a cue starts its sentence (its first capital is no name sign)."""
    return not slot.split() or sentence.lstrip(" *_#>-\t").startswith(slot.split()[0].lstrip(" *_#>-\t"))


def _terms(words: list[tuple[str, bool]], backwards: bool = False) -> list[Term]:
    ordered = list(reversed(words)) if backwards else words
    return [Term(w, k, named) for k, (w, named) in enumerate(ordered)]


def _terms_after(sentence: str, end: int) -> list[Term]:
    return _terms(_words(_slot_after(sentence, end)))


def _terms_before(sentence: str, start: int) -> list[Term]:
    slot = _slot_before(sentence, start)
    return _terms(_words(slot, _opens(sentence, slot)), backwards=True)


def _quote(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE else sentence[: MAX_SENTENCE - 1] + "…"


#: an object right after the cue: the cue is active ("`cleanText` already removed them"), and the
#: words before it name who did it, not what was removed
_ACTIVE_OBJECT = re.compile(r"\s+(?:them|it|this|these|those|him|her|us|me|everything)\b", re.IGNORECASE)


def _claims_in(sentence: str, ids: Iterable[int], longest: int = 0) -> list[NegClaim]:
    """The claims of the cues ``ids`` in one sentence; with ``longest``, only those whose negated
    phrase holds at most that many words."""
    limit = longest + 1 if longest else 0
    out = []
    for k in ids:
        cue = _CUES[k]
        for m in cue.pattern.finditer(sentence):
            quote, said = _quote(sentence), m.group().strip()
            label = _LABEL.match(sentence, m.end())
            if label and "x" not in cue.pattern.groupindex:
                body = sentence[label.end():]
                end = _LIST_END.search(body)
                items = _ITEM.split(body[: end.start()] if end else body)[:LIST_ITEMS]
                for item in items:
                    words = _words(item, opening=True, limit=limit)
                    if words and not (longest and len(words) > longest):
                        out.append(NegClaim(cue.family, tuple(_terms(words)), quote, said, tuple(w for w, _ in words)))
                continue
            backwards = False
            if "x" in cue.pattern.groupindex and m.group("x") is not None:
                words = _words(m.group("x"), limit=limit)
            else:
                after = _words(_slot_after(sentence, m.end()), limit=limit) if cue.slot != BEFORE else []
                slot = (_slot_before(sentence, m.start())
                        if cue.slot != AFTER and not _ACTIVE_OBJECT.match(sentence, m.end()) else "")
                before = _last_words(slot, _opens(sentence, slot), limit) if slot else []
                if cue.slot == BOTH:
                    words, backwards = (after, False) if after else (before, True)
                elif cue.slot == EITHER:
                    words, backwards = (before, True) if before else (after, False)
                else:
                    words, backwards = (after, False) if cue.slot == AFTER else (before, True)
            if words and not (longest and len(words) > longest):
                terms = tuple(_terms(words, backwards))
                out.append(NegClaim(cue.family, terms, quote, said, tuple(w for w, _ in words)))
    return out


def _last_words(slot: str, opening: bool, limit: int) -> list[tuple[str, bool]]:
    """The words of a slot before its cue; with ``limit``, the last ``limit`` of them (read from
    the end, so a long slot is not read whole)."""
    if not limit:
        return _words(slot, opening)
    pieces = slot.split()
    out: list[tuple[str, bool]] = []
    for n in range(len(pieces) - 1, -1, -1):
        out[:0] = _words(pieces[n], opening and n == 0)
        if len(out) >= limit:
            return out[-limit:]
    return out


@dataclass(frozen=True)
class _Keys:
    """The keys of one set of families, ready for :func:`_file_keys`."""

    words: dict[str, list[int]]  # ASCII letter-word keys -> cues
    as_tokens: frozenset[str]  # the word keys that are tokens
    spoken: tuple[tuple[str, tuple[str, ...]], ...]  # the others (stop words), under their stems
    others: dict[str, list[int]]  # keys of other scripts or with marks -> cues
    ascii_others: dict[str, list[int]]


@cache
def _prepared(families: frozenset[str]) -> _Keys:
    word_keys, words, others, ascii_others = _key_tables(families)
    as_tokens, as_text = _token_keys(word_keys)
    return _Keys(words, as_tokens, _stems(as_text), others, ascii_others)


def _file_keys(f: MemoryFile, families: frozenset[str], tokens: frozenset[str],
               present: frozenset[str] | None = None) -> dict[str, list[int]]:
    """:func:`_keys_in` of a file's text, found through its title + body ``tokens``: a key that is
    a token is there only if the tokens hold it (one set intersection), a stop word ("not") is
    looked for in the text, the description (no part of the tokens) is split into its words,
    and the keys of other scripts are looked for only in a text that is not ASCII.  ``present``:
    the key words that are tokens of some file of the root (the others need no looking for)."""
    keys = _prepared(families)
    found = set((keys.as_tokens if present is None else present).intersection(tokens))
    text = f.text
    low = text.lower()
    ascii_text = low.isascii()
    found.update(k for stem, words in keys.spoken if stem in low for k in words if k in low and _has_word(k, low))
    description = f.frontmatter.get("description")
    if description:
        found.update(keys.as_tokens.intersection(token_list(description)))
    out = {k: keys.words[k] for k in found}
    for key, ids in (keys.ascii_others if ascii_text else keys.others).items():
        if key in low or key in text:
            out[key] = ids
    return out


@cache
def _token_keys(word_keys: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The key words that are tokens (:func:`memtui.core.model.words.token_list` keeps them) and the rest."""
    tokens = frozenset(k for k in word_keys if token_list(k) == [k])
    return tokens, tuple(k for k in word_keys if k not in tokens)


def root_keys(files: Sequence[MemoryFile], full: Sequence[frozenset[str]], families: frozenset[str],
              present: frozenset[str] | None = None) -> list[dict[str, list[int]]]:
    """:func:`_file_keys` of every file of a root, found for the whole root at once: the texts are
    joined and lower-cased once, each stop-word key and each key of another script is looked for
    with ``str.find`` through them all, and only the files it is found in are looked at (a file
    of a large root holds none of them, mostly).  The token keys are one set intersection a file."""
    keys = _prepared(families)
    texts = [f.text for f in files]
    big = "\x00".join(texts)
    low = big.lower()
    if len(low) != len(big):  # a letter that lowers to two ("İ"): positions would not match
        return [_file_keys(f, families, full[i], present) for i, f in enumerate(files)]
    starts = list(accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
    found: dict[int, set[str]] = {}
    token_keys = keys.as_tokens if present is None else present
    if token_keys:
        for i, tokens in enumerate(full):
            hit = token_keys.intersection(tokens)
            if hit:
                found.setdefault(i, set()).update(hit)
    lows: dict[int, str] = {}

    def low_of(i: int) -> str:
        if i not in lows:
            lows[i] = low[starts[i] : starts[i] + len(texts[i])]
        return lows[i]

    for stem, words in keys.spoken:
        for i in _holding(low, stem, starts):
            text = low_of(i)
            for k in words:
                if k in text and _has_word(k, text):
                    found.setdefault(i, set()).add(k)
    for i, f in enumerate(files):
        description = f.frontmatter.get("description")
        if description:
            hit = keys.as_tokens.intersection(token_list(description))
            if hit:
                found.setdefault(i, set()).update(hit)
    out: list[dict[str, list[int]]] = [{} for _ in files]
    for i, held in found.items():
        out[i] = {k: keys.words[k] for k in held}
    for key, ids in keys.ascii_others.items():
        for i in _holding(low, key, starts):
            out[i][key] = ids
    for i, text in enumerate(texts):  # a text of another script: its keys, as _file_keys looks for them
        if text.isascii():
            continue
        lowered = low_of(i)
        for key, ids in keys.others.items():
            if key not in out[i] and (key in lowered or key in text):
                out[i][key] = ids
    return out


def _holding(text: str, key: str, starts: Sequence[int]) -> set[int]:
    """The indices of the joined texts (starting at ``starts``) in which ``key`` occurs."""
    out: set[int] = set()
    at = text.find(key)
    while at >= 0:
        i = bisect_right(starts, at) - 1
        out.add(i)
        following = starts[i + 1] if i + 1 < len(starts) else len(text)
        at = text.find(key, following)  # the next text
    return out


def neg_claims(f: MemoryFile, families: Collection[str] = FAMILIES, longest: int = 0,
               tokens: frozenset[str] | None = None, present: frozenset[str] | None = None,
               keys: dict[str, list[int]] | None = None) -> tuple[NegClaim, ...]:
    """Every negative cue of ``families`` the file says (see the module docstring), with the words
    in its slot, and the bullets under a label line that is a cue ("İPTAL:", "## Removed").

    Only the sentences that hold a key of a cue are read: the keys are found in the whole text
    first (one set intersection, a few substring tests), then the sentences around them are cut
    out as :func:`sentences` would cut them.  With ``longest``, only the claims whose negated
    phrase holds at most that many words (the longer ones are not read through).  With ``tokens``
    (the file's title + body tokens) its keys are found through them (:func:`_file_keys`); with
    ``keys``, they are those (:func:`root_keys` found them).
    """
    if keys is None:
        keys = (_keys_in(f.text, frozenset(families)) if tokens is None
                else _file_keys(f, frozenset(families), tokens, present))
    if not keys:
        return ()
    out: list[NegClaim] = []
    body, spots = _spots(f, keys)
    for sentence, here in _sentences_at(f, body, spots, keys):
        out.extend(_claims_in(sentence, here, longest))
    out.extend(_section_claims(body, spots, keys, longest))
    return tuple(out)


@cache
def _family_cues(families: frozenset[str]) -> frozenset[int]:
    return frozenset(k for k, cue in enumerate(_CUES) if cue.family in families)


def _spots(f: MemoryFile, keys: dict[str, list[int]]) -> tuple[str, list[int]]:
    """The body (fenced code left out) and the sorted positions in it where a key starts."""
    body = f.body
    if "```" in body or "~~~" in body:
        body = _FENCE.sub("\n", body)
    low = body.lower()
    if len(low) != len(body):  # a letter that lowers to two ("İ"): positions would not match
        return body, [-1]
    spots: set[int] = set()
    for key in keys:
        for text in (low, body) if key != key.lower() else (low,):
            at = text.find(key)
            while at >= 0:
                spots.add(at)
                at = text.find(key, at + 1)
    return body, sorted(spots)


def _sentences_at(f: MemoryFile, body: str, spots: list[int], keys: dict[str, list[int]]
                  ) -> list[tuple[str, list[int]]]:
    """The sentences of :func:`sentences` that hold a spot (all of them, for ``[-1]``), each with
    the cues whose keys it holds (those holding none left out)."""
    if spots == [-1]:
        texts = sentences(f)
    else:
        texts = [text for text in (f.title, f.description) if text]
        seen: set[int] = set()
        end = -1
        for at in spots:
            if at < end:
                continue  # in the sentence just read
            start = _piece_start(body, at)
            stop = _SENTENCE.search(body, at)
            end = stop.start() if stop else len(body)
            if start in seen:
                continue
            seen.add(start)
            piece = body[start:end].strip().lstrip("#>*-+ \t").strip()
            if piece and piece != "---":
                texts.append(piece)
    return [(text, here) for text in texts if (here := _cues_in(text, keys))]


def _piece_start(body: str, at: int) -> int:
    """Where the piece of ``_SENTENCE.split(body)`` holding position ``at`` starts."""
    window = 1000
    while True:
        start = max(0, at - window)
        ends = [m.end() for m in _SENTENCE.finditer(body, start, at)]
        if ends:
            return ends[-1]
        if start == 0:
            return 0
        window *= 4


def _section_claims(body: str, spots: list[int], keys: dict[str, list[int]], longest: int = 0) -> list[NegClaim]:
    lines = body.splitlines() if spots == [-1] else None
    starts = sorted({body.rfind("\n", 0, at) + 1 for at in spots}) if lines is None else range(len(lines))
    out: list[NegClaim] = []
    for start in starts:
        if lines is not None:
            line, after = lines[start], lines[start + 1 : start + 1 + SECTION_BULLETS]
        else:
            stop = body.find("\n", start)
            line = body[start:] if stop < 0 else body[start:stop]
            after = [] if stop < 0 else body[stop + 1 :].split("\n", SECTION_BULLETS)[:SECTION_BULLETS]
        m = _SECTION.match(line)
        if m is None:
            continue
        label = (m.group("heading") or m.group("label") or "").strip("*_ ")
        if not label or len(label.split()) > LABEL_WORDS:
            continue
        found = [(k, hit) for k in _cues_in(label, keys) if (hit := _CUES[k].pattern.search(label))]
        if not found:
            continue
        k, hit = found[0]
        for item_line in after:
            bullet = _BULLET.match(item_line)
            if bullet is None:
                break
            text = bullet.group("item")
            quote = _quote(f"{label}: {text.strip()}")
            for item in _ITEM.split(text)[:LIST_ITEMS]:
                words = _words(item, opening=True, limit=longest + 1 if longest else 0)
                if words and not (longest and len(words) > longest):
                    out.append(NegClaim(_CUES[k].family, tuple(_terms(words)), quote, hit.group().strip(),
                                        tuple(w for w, _ in words)))
    return out


def cached_neg_claims(f: MemoryFile, families: Collection[str] = FAMILIES, longest: int = 0,
                      tokens: frozenset[str] | None = None, present: frozenset[str] | None = None,
                      keys: dict[str, list[int]] | None = None) -> tuple[NegClaim, ...]:
    """:func:`neg_claims`, kept in the stat cache for files of a cached load."""
    facet = "scan/negations" if families is FAMILIES else "scan/negations/" + "+".join(sorted(families))
    if longest:
        facet += f"/{longest}"
    return cached(
        f, facet, lambda g: neg_claims(g, families, longest, tokens, present, keys),
        lambda found: tuple((c.family, tuple((t.word, t.distance, t.named) for t in c.terms), c.sentence, c.cue,
                             c.phrase) for c in found),
        lambda plain: tuple(NegClaim(family, tuple(Term(*t) for t in terms), sentence, cue, tuple(phrase))
                            for family, terms, sentence, cue, phrase in plain),
    )


def negates(sentence: str) -> bool:
    """Whether a sentence says any negative cue (of any family)."""
    return any(cue_match for k in _cues_in(sentence) if (cue_match := _CUES[k].pattern.search(sentence)))


def _is_negated_use(sentence: str, m: re.Match[str]) -> bool:
    return bool(_NEGATED_USE.search(sentence[max(0, m.start() - 2) : m.start()])
                or _USE_NEGATED_AFTER.match(sentence[m.end() : m.end() + 8]))


def mentions(f: MemoryFile, wanted: Collection[str]) -> list[Mention]:
    """The sentences of the file that say a ``wanted`` word is in use (a use cue near it) or
    done (a status word near it), in sentences that hold no negative cue (a body heading is
    none: it names the section it opens)."""
    out: list[Mention] = []
    for sentence in sentences(f, headings=False):
        low = sentence.lower()
        if not any(t in low for t in wanted):
            continue
        words = tuple(w for w, _ in _words(sentence))
        if not any(w in wanted for w in words) or negates(sentence):
            continue
        quote = _quote(sentence)
        prescribes = bool(_PRESCRIBES.search(quote))
        for pattern, status in ((_POSITIVE, False), (_STATUS_POSITIVE, True)):
            for m in pattern.finditer(sentence):
                if not status and _is_negated_use(sentence, m):
                    continue
                for side in (_terms_after(sentence, m.end()), _terms_before(sentence, m.start())):
                    for term in side:
                        if term.word in wanted:
                            out.append(Mention(term.word, term.distance, status, quote, words, prescribes))
    return out


# ------------------------------------------------------------------------------ pairs


#: words of a log's file name: a note of what was done at one time, true of that time
_LOG_WORD = re.compile(
    r"(?:^|[-_.])(?:session|sessions|handoff|hand-off|checkpoint|daily|standup|journal|progress|status|worklog|log"
    r"|oturum|devir|durum)(?:[-_.\d]|$)",
    re.IGNORECASE,
)
_LEADING_DATE = re.compile(r"^\d{4}-?\d{2}-?\d{2}")


def is_log(path: str) -> bool:
    """Whether a file's name says it is a log of work: ``session_*``/``session-*``, a log word
    (session, hand-off, status, checkpoint, daily, progress …) with a date or a number in the
    name, or a name that starts with a date.  What a log says was true when it was written."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.startswith(("session_", "session-")) or _LEADING_DATE.match(name):
        return True
    return bool(_LOG_WORD.search(name)) and any(ch.isdigit() for ch in name)


@dataclass(frozen=True)
class Settings:
    """The constants a negated-claim proposal is held to (chosen by ``bench/tune_contradictions.py``)."""

    families: frozenset[str] = frozenset({NEGATED, REPLACED, NO_LONGER, REMOVED})
    neg_window: int = 2  # X is among the first this many words of the negative cue's slot
    pos_window: int = 2  # … and among the first this many words on either side of the use cue
    max_df: int = 3  # X is named in at most this many files of the root
    named: bool = True  # X looks like a name (capitals, digits, identifier marks, backticks, katakana) …
    span_unnamed: int = 99  # … unless the other sentence repeats this many words of the negated phrase
    min_score: float = 0.0  # the two notes' pair score (overlap coefficient) is at least this
    context: int = 0  # the two sentences share at least this many words besides X
    max_phrase: int = 99  # the negated phrase holds at most this many words (X alone: 1)
    min_span: int = 1  # the other sentence repeats at least this many words of the negated phrase
    status_affirms: bool = True  # a removal or negation may meet a note that says X is done or built


#: The rule the issue names, fixed before any measure: one note negates, replaces, stops using or
#: removes a *name* (X looks like one and at most three files of the root hold it) right after its
#: cue, in a phrase of at most two words, and the other says X is in use (or built) near its use
#: cue.  Not tuned: it is the definition of a contradiction a reader sees at once.
BASE = Settings(families=frozenset({NEGATED, REPLACED, NO_LONGER, REMOVED}), neg_window=1, pos_window=2, max_df=3,
                named=True, span_unnamed=99, min_score=0.0, context=0, max_phrase=2, min_span=1,
                status_affirms=True)

#: The extension chosen on every author group of the corpora by ``bench/tune_contradictions.py``
#: (its own proposals right at precision ≥ 0.85, the most of them, then the tightest): the other
#: note repeats the negated phrase of two words or more ("not named imports" / "use named
#: imports"), near a use cue, and the two sentences share one more word.
SETTINGS = Settings(families=frozenset({NEGATED, REPLACED}), neg_window=2, pos_window=2, max_df=8, named=True,
                    span_unnamed=2, min_score=0.2, context=1, max_phrase=2, min_span=2, status_affirms=False)

#: the loosest settings the candidates are collected at (each tuned constant at its widest)
LOOSEST = Settings(families=frozenset(FAMILIES), neg_window=3, pos_window=3, max_df=8, named=False, span_unnamed=1,
                   min_score=0.0, context=0, max_phrase=99, min_span=1, status_affirms=True)

#: the rules a pair is proposed by: any of them
RULES = (BASE, SETTINGS)


def cover(rules: Sequence[Settings]) -> Settings:
    """The loosest settings that every one of ``rules`` is within (the candidates to judge)."""
    return Settings(
        families=frozenset().union(*(r.families for r in rules)),
        neg_window=max(r.neg_window for r in rules), pos_window=max(r.pos_window for r in rules),
        max_df=max(r.max_df for r in rules), named=all(r.named for r in rules),
        span_unnamed=min(r.span_unnamed if r.named else 1 for r in rules),
        min_score=min(r.min_score for r in rules), context=min(r.context for r in rules),
        max_phrase=max(r.max_phrase for r in rules), min_span=min(r.min_span for r in rules),
        status_affirms=any(r.status_affirms for r in rules),
    )


@dataclass(frozen=True)
class NegatedPair:
    """A negator (``neg``) that negates ``word``, a file (``pos``) that says it is in use."""

    neg: int
    pos: int
    word: str
    family: str
    neg_distance: int
    pos_distance: int
    named: bool
    df: int  # how many files of the root hold the word's tokens
    context: int
    phrase: int  # how many words the negated phrase holds
    span: int  # how many of them the other sentence repeats in one run, X among them
    pos_status: bool  # the other note says X is done or built (a status word), not that it is in use
    neg_sentence: str
    pos_sentence: str
    cue: str
    phrase_words: tuple[str, ...] = ()  # the negated phrase, in the order it is written
    pos_words: tuple[str, ...] = ()  # the other sentence's words

    def passes(self, s: Settings, score: float) -> bool:
        return (self.family in s.families and self.neg_distance < s.neg_window and self.pos_distance < s.pos_window
                and self.df <= s.max_df and (self.named or not s.named or self.span >= s.span_unnamed)
                and score >= s.min_score and self.context >= s.context and self.phrase <= s.max_phrase
                and self.span >= s.min_span and (s.status_affirms or not self.pos_status or self.family == STATUS))


def _context(a: str, b: str, word: str) -> int:
    """How many words two sentences share besides ``word`` (and its own tokens)."""
    return len((frozenset(token_list(a)) & frozenset(token_list(b))) - word_tokens(word))


def negated_pairs(
    files: Sequence[MemoryFile], full: Sequence[frozenset[str]], settings: Settings = SETTINGS,
    *, every: bool = False, df: Collection[str] | None = None,
) -> list[NegatedPair]:
    """The best (negator, file in use) pair per two files and family the settings allow, before
    the pair score is checked (``every``: all of them, for the tuning).  ``full``: each file's
    title + body tokens; ``df`` (optional): the tokens any of them holds (a key word none holds is
    not looked for).

    The negated words of the whole root are gathered first; one pass over the files' token sets
    finds the files that may hold one (all its tokens), which also counts how many do (the
    word's document frequency); only those files are read for a use of it.  A file that itself
    negates X is no witness that X is in use (two notes that both say "do NOT use X" agree; a
    note that corrects itself has changed its mind), and neither is a log: what a session or
    status note says was in use was true when it was written, and a later note does not
    contradict it.  Status pairs need a status word on the other side, the other families a use
    cue.
    """
    families = frozenset(settings.families)
    wanted: dict[str, list[tuple[int, NegClaim, Term]]] = {}
    longest = settings.max_phrase if settings.max_phrase < SLOT_WORDS else 0
    present = None if df is None else frozenset(k for k in _prepared(families).as_tokens if k in df)
    for i, keys_of in enumerate(root_keys(files, full, families, present)):
        if not keys_of:
            continue
        for claim in cached_neg_claims(files[i], families, longest, full[i], present, keys_of):
            if len(claim.terms) > settings.max_phrase:
                continue
            for term in claim.terms:
                if term.distance < settings.neg_window and (term.named or not settings.named
                                                            or settings.span_unnamed <= len(claim.phrase)):
                    wanted.setdefault(term.word, []).append((i, claim, term))
    if not wanted:
        return []
    # each word under its rarest token, so that one lookup per token of a file finds it
    by_token: dict[str, list[str]] = {}
    for word in wanted:
        by_token.setdefault(min(word_tokens(word)), []).append(word)
    keys = set(by_token)
    held_by: dict[str, int] = {}  # how many files hold each word
    holders: list[tuple[int, set[str]]] = []
    for j, tokens in enumerate(full):
        hit = tokens & keys
        if not hit:
            continue
        held = {w for t in hit for w in by_token[t] if word_tokens(w) <= tokens}
        for w in held:
            held_by[w] = held_by.get(w, 0) + 1
        if held:
            holders.append((j, held))
    out: dict[tuple[int, int, object], NegatedPair] = {}
    for j, held in holders:
        held = {w for w in held if held_by[w] <= settings.max_df}
        if not held or is_log(files[j].path):
            continue
        held -= {t.word for claim in cached_neg_claims(files[j], tokens=full[j]) for t in claim.terms}  # its own
        if not held:
            continue
        for mention in mentions(files[j], held):
            if mention.distance >= settings.pos_window:
                continue
            for i, claim, term in wanted[mention.word]:
                if i == j or not _meets(claim.family, mention, settings):
                    continue
                context = _context(claim.sentence, mention.sentence, mention.word)
                run = span(claim.phrase, mention.word, mention.words)
                if context < settings.context or run < settings.min_span or (
                        settings.named and not term.named and run < settings.span_unnamed):
                    continue
                pair = NegatedPair(i, j, mention.word, claim.family, term.distance, mention.distance, term.named,
                                   held_by[mention.word], context, len(claim.terms), run, mention.status,
                                   claim.sentence, mention.sentence, claim.cue, claim.phrase, mention.words)
                key = (i, j, claim.family) if not every else (i, j, pair)
                best = out.get(key)
                if best is None or _rank(pair) < _rank(best):
                    out[key] = pair
    return sorted(out.values(), key=lambda p: (p.neg, p.pos, p.family, _rank(p)))


def negated_pairs_brute(
    files: Sequence[MemoryFile], full: Sequence[frozenset[str]], settings: Settings = SETTINGS,
) -> list[NegatedPair]:
    """Reference for :func:`negated_pairs`: every ordered pair of files compared, no index."""
    out: dict[tuple[int, int, str], NegatedPair] = {}
    claims = [neg_claims(f, tokens=full[i]) for i, f in enumerate(files)]

    def df(word: str) -> int:
        return sum(1 for tokens in full if word_tokens(word) <= tokens)

    for i, found in enumerate(claims):
        for j, other in enumerate(files):
            if i == j or is_log(other.path):
                continue
            own = {t.word for c in claims[j] for t in c.terms}
            for claim in found:
                if claim.family not in settings.families or len(claim.terms) > settings.max_phrase:
                    continue
                for term in claim.terms:
                    if (term.distance >= settings.neg_window or term.word in own
                            or not word_tokens(term.word) <= full[j] or df(term.word) > settings.max_df):
                        continue
                    for mention in mentions(other, {term.word}):
                        if mention.distance >= settings.pos_window or not _meets(claim.family, mention,
                                                                                 settings):
                            continue
                        context = _context(claim.sentence, mention.sentence, term.word)
                        run = span(claim.phrase, term.word, mention.words)
                        if context < settings.context or run < settings.min_span or (
                                settings.named and not term.named and run < settings.span_unnamed):
                            continue
                        pair = NegatedPair(i, j, term.word, claim.family, term.distance, mention.distance,
                                           term.named, df(term.word), context, len(claim.terms), run,
                                           mention.status, claim.sentence, mention.sentence, claim.cue,
                                           claim.phrase, mention.words)
                        key = (i, j, claim.family)
                        if key not in out or _rank(pair) < _rank(out[key]):
                            out[key] = pair
    return sorted(out.values(), key=lambda p: (p.neg, p.pos, p.family, _rank(p)))


#: a sentence that prescribes rather than reports ("must use X", "always use X", "X を必ず使う"): a
#: rule of the folder, not a statement of what is in use
_PRESCRIBES = re.compile(
    r"\b(?:always|must|should|required|mandatory|make\s+sure|ensure)\b"
    r"|\b(?:sempre|siempre|deve[mr]?|debe[nr]?|obrigat[óo]ri[oa]|obligatori[oa])\b"
    r"|\b(?:her\s+zaman|mutlaka|zorunlu)\b"
    r"|必ず|べき|必須|항상|반드시|해야|필수|必须|務必|务必|总是|總是|应该|應該",
    re.IGNORECASE,
)


def _meets(family: str, mention: Mention, settings: Settings) -> bool:
    """Whether a negative cue of ``family`` meets a mention that says X is done (``status``) or
    in use: a status flip only a status word; a removal or negation either, a status word when
    the settings let it.  A mention that prescribes X (:data:`_PRESCRIBES`: "must use X") is a
    rule, and only its retraction contradicts it ("no longer", "removed"): a note that says
    something is used instead of X, or that X is missing or not done, reports a breach of the
    rule, not a disagreement with it."""
    if family not in (NO_LONGER, REMOVED) and mention.prescribes:
        return False
    if family == STATUS:
        return mention.status
    return not mention.status or settings.status_affirms


def _rank(p: NegatedPair) -> tuple[int, int, int, int, int, str, str, str]:
    """The better of two pairs of one negator, file and family: the longer shared phrase, then
    the nearer, rarer, named one."""
    return (-p.span, p.neg_distance + p.pos_distance, p.df, 0 if p.named else 1, -p.context, p.word,
            p.neg_sentence, p.pos_sentence)
