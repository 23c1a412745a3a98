const router = require("express").Router();

router.get("/users", async (req, res, next) => {
  try {
    res.json(await listUsers());
  } catch (e) {
    next(e);
  }
});

router.get("/groups", async (req, res, next) => {
  try {
    res.json(await listGroups());
  } catch (e) {
    next(e);
  }
});

module.exports = router;
