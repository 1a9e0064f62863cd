-- Battery for ui-shopping-list: types into ItemEdit (clicking it, selecting what is there and deleting it
-- first, as a user would), adds with AddButton or RETURN, selects entries by clicking them and removes them,
-- reading the native UI's own records (ListView entries, selection, CountText).
local h = harness
local fmt = string.format

local NAMES = {ItemEdit = "LineEdit", AddButton = "Button", ItemList = "ListView", RemoveButton = "Button",
               CountText = "Text"}
local ORDER = {"ItemEdit", "AddButton", "ItemList", "RemoveButton", "CountText"}
local SW, SH = h.screen()

local function entries()
  local lv = h.ui("ItemList")
  local items = lv and lv.items
  if items == nil then return nil end
  local out = {}
  for i, it in ipairs(items) do out[i] = it.text or ("<" .. it.type .. ">") end
  return out
end
local function join(list) return list and table.concat(list, " | ") end
-- `list` without its entry number `index`.
local function without(list, index)
  local out = {}
  for i, e in ipairs(list or {}) do if i ~= index then out[#out + 1] = e end end
  return out
end
-- `list` with `entry` appended.
local function plus(list, entry)
  local out = {}
  for i, e in ipairs(list or {}) do out[i] = e end
  out[#out + 1] = entry
  return out
end

-- Where each control is and whether a click at its centre reaches it.
local function layout()
  local out = {}
  for _, name in ipairs(ORDER) do
    local v = h.ui(name)
    local e = {exists = v ~= nil and v.exists}
    if e.exists then
      e.type, e.visible, e.x, e.y, e.w, e.h = v.type, v.visible, v.x, v.y, v.width, v.height
      local c = v.center
      local hit = h.ui_at(c.x, c.y)
      while hit and hit.name ~= name do hit = hit.parent end
      e.reached = hit ~= nil
    end
    out[name] = e
  end
  return out
end

local function snap(label)
  local lv = h.ui("ItemList")
  return {label = label, frame = h.frame(), entries = entries(), count = h.ui_text("CountText"),
          edit = h.ui_text("ItemEdit"), selection = lv and lv.selection}
end

local function clear_edit()
  h.click_ui("ItemEdit"); h.run_frames(1)
  h.press(KEY_END); h.key_down(KEY_LSHIFT); h.press(KEY_HOME); h.key_up(KEY_LSHIFT); h.press(KEY_BACKSPACE)
  h.run_frames(1)
end
local function type_text(s) clear_edit(); h.text(s); h.run_frames(1) end
local function click(name) h.click_ui(name); h.run_frames(1) end
-- Click entry number `index` (1-based); false when there is no such entry.
local function click_entry(index)
  local lv = h.ui("ItemList")
  local it = lv and lv.items and lv.items[index]
  if it == nil then return false end
  h.click(it.center.x, it.center.y); h.run_frames(1)
  return true
end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
h.run_frames(2)
S.start = snap("at start")
S.layout = layout()
local ok = S.layout.ItemEdit.reached and S.layout.AddButton.reached and S.layout.RemoveButton.reached
  and S.layout.ItemList.exists
if ok then
  click("RemoveButton")
  S.remove_empty = snap("Remove with an empty list")

  type_text("milk"); click("AddButton")
  S.add_button = snap("after typing 'milk' and clicking Add")
  type_text("eggs"); h.press(KEY_RETURN); h.run_frames(1)
  S.add_return = snap("after typing 'eggs' and pressing RETURN")
  type_text("  bread  "); click("AddButton")
  S.trim = snap("after adding '  bread  '")
  type_text("   "); click("AddButton")
  S.blank_button = snap("after adding '   ' with Add")
  type_text(""); h.press(KEY_RETURN); h.run_frames(1)
  S.blank_return = snap("after RETURN on an empty edit")

  S.clicked_second = click_entry(2)
  S.select = snap("after clicking the second entry")
  click("RemoveButton")
  S.remove = snap("after removing the second entry")
  click("RemoveButton")
  S.remove_again = snap("after clicking Remove again")
  S.clicked_first = click_entry(1)
  click("RemoveButton")
  S.remove_first = snap("after selecting and removing the first entry")

  S.before_many = snap("before adding 24 more entries")
  for i = 1, 24 do type_text("item " .. i); click("AddButton") end
  S.many = snap("after adding 24 more entries")
  S.many_layout = layout()
  local lv = h.ui("ItemList")
  local items = lv.items or {}
  local last = items[#items]
  S.last_visible = false
  if last then
    local hit = h.ui_at(last.center.x, last.center.y)
    S.last_visible = hit ~= nil and hit.text == last.text and last.y >= lv.y and last.y + last.height <= lv.y + lv.height
  end
end

-- requirements -------------------------------------------------------------------------------------
local function need(check)
  if not ok then check.fail("the controls", "ItemEdit, AddButton, RemoveButton and ItemList are not all reachable") end
  return ok
end
-- The entries of snapshot `s` are `want` (a list), CountText counts them, and the edit was emptied.
local function state(check, s, want, what)
  local at = check.at(s.frame)
  at.equal(s.label .. ": entries", join(s.entries), join(want))
  at.equal(s.label .. ": CountText", s.count, fmt("Items: %d", s.entries and #s.entries or -1))
  if what ~= "keep edit" then at.equal(s.label .. ": ItemEdit emptied", s.edit, "") end
end

local function check_layout(check, l, label)
  for _, name in ipairs(ORDER) do
    local e = l[name]
    check.truthy(fmt("%s: %s exists in the UI", label, name), e.exists)
    if e.exists then
      check.equal(fmt("%s: %s type", label, name), e.type, NAMES[name])
      check.truthy(fmt("%s: %s visible", label, name), e.visible)
      check.truthy(fmt("%s: %s entirely on screen", label, name),
        e.x >= 0 and e.y >= 0 and e.x + e.w <= SW and e.y + e.h <= SH)
      if name ~= "CountText" then   -- a Text is not enabled: clicks pass through it
        check.truthy(fmt("%s: %s at least 20 x 20", label, name), e.w >= 20 and e.h >= 20)
        check.truthy(fmt("%s: a click at %s's centre reaches it", label, name), e.reached)
      end
    end
  end
end

requirement("R1", function(check)
  check_layout(check, S.layout, "at start")
  check.at(S.start.frame).equal("at start: CountText", S.start.count, "Items: 0")
  check.at(S.start.frame).equal("at start: no entries", join(S.start.entries), "")
end)

requirement("R2", function(check)
  if not need(check) then return end
  state(check, S.add_button, plus(S.start.entries, "milk"))
end)

requirement("R3", function(check)
  if not need(check) then return end
  state(check, S.add_return, plus(S.add_button.entries, "eggs"))
end)

requirement("R4", function(check)
  if not need(check) then return end
  state(check, S.trim, plus(S.add_return.entries, "bread"))
  state(check, S.blank_button, S.trim.entries)
  state(check, S.blank_return, S.trim.entries)
end)

requirement("R5", function(check)
  if not need(check) then return end
  state(check, S.remove_empty, {}, "keep edit")
  check.at(S.select.frame).truthy("a second entry to click", S.clicked_second)
  check.at(S.select.frame).equal(S.select.label .. ": ItemList selection", S.select.selection, 1)
  state(check, S.remove, without(S.blank_return.entries, 2), "keep edit")
  check.at(S.remove_first.frame).truthy("a first entry to click", S.clicked_first)
  state(check, S.remove_first, without(S.remove_again.entries, 1), "keep edit")
end)

-- richness
requirement("R6", function(check)
  if not need(check) then return end
  check.at(S.remove_again.frame).equal(S.remove_again.label .. ": entries", join(S.remove_again.entries),
    join(S.remove.entries))
end)

requirement("R7", function(check)
  if not need(check) then return end
  local want = S.before_many.entries and #S.before_many.entries + 24 or -1
  check.at(S.many.frame).equal(S.many.label .. ": CountText", S.many.count, fmt("Items: %d", want))
  check_layout(check, S.many_layout, S.many.label)
  check.at(S.many.frame).truthy(S.many.label .. ": the newest entry is scrolled into sight and clickable",
    S.last_visible)
end)
