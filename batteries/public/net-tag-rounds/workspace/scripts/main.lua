-- Entry point of the game: the engine loads this file and calls Start().
-- See README.md and the task prompt for what to build.

function Start()
end
