"""Localization as Urho3D's: languages in the order first seen, the first multiple-language load making the first
language current, ChangeLanguage only on a change, and every refusal a warning that returns the id or nothing."""

from __future__ import annotations

from engine.testing import lua, new_engine

FILES = {
    "Strings.json": '{"title": {"en": "Hello", "ru": "Privet"}, "bye": {"en": "Bye", "ru": ""}, "x": 3}',
    "De.json": '{"title": "Hallo", "only": "Nur"}',
}


def test_strings_by_language_from_json_files() -> None:
    engine = new_engine("""
    changes = 0
    function Start()
      SubscribeToEvent("ChangeLanguage", function() changes = changes + 1 end)
    end
    """, FILES)
    engine.start()
    out = lua("""
    local l = localization
    local before = {l.numLanguages, l.languageIndex, l:Get("title"), l.language}
    l:LoadJSONFile("Strings.json")
    l:LoadJSONFile("De.json", "de")
    local out = {before, l.numLanguages, l.languageIndex, l.language, l:Get("title"), l:GetLanguage(2),
                 l:GetLanguageIndex("ru")}
    l:SetLanguage("ru"); out[#out + 1] = l:Get("title"); out[#out + 1] = l:Get("bye")
    l:SetLanguage(2); out[#out + 1] = l:Get("only"); l:SetLanguage(2); l:SetLanguage("xx")
    out[#out + 1] = changes
    l:Reset(); out[#out + 1] = l.numLanguages; out[#out + 1] = GetLocalization() == l
    return out
    """, engine)
    assert out == [[0, -1, "title", ""], 3, 0, "en", "Hello", "de", 1, "Privet", "bye", "Nur", 2, 0, True]
    warnings = [e["message"] for e in engine.report().log if e["level"] == "WARNING"]
    assert warnings == [
        "Localization::Get(id): no loaded languages",
        "Localization::GetLanguage(): no loaded languages",
        'Localization::LoadMultipleLanguageJSON(source): translation is empty, string ID="bye", language="ru"',
        'Localization::LoadMultipleLanguageJSON(source): failed to load values, string ID="x"',
        'Localization::Get("bye") not found translation, language="ru"',
        "Localization::SetLanguage(language): language not found",
    ]


def test_a_single_language_load_sets_no_current_language() -> None:
    engine = new_engine(files=FILES)
    out = lua("""
    localization:LoadJSONFile("De.json", "de")
    return {localization.numLanguages, localization.languageIndex, localization:Get("title")}
    """, engine)
    assert out == [1, -1, "title"]
