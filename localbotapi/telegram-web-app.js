// A stand-in of Telegram's telegram-web-app.js for tests and the sandbox (localbotapi/webapp.py).
// Like the real script it reads the launch parameters from location.hash (kept in
// sessionStorage, so a reload without them still knows them), builds window.Telegram.WebApp and
// sets the --tg-* CSS variables. What a real client would show or do outside the page is
// recorded instead: window.__tgHaptics ("impact:light", "notification:warning", "selection"),
// window.__tgAlerts, window.__tgLinks, window.__tgClosed, window.__tgReady.
// window.Telegram.WebApp.__setTheme(params) switches the theme as a client does ("themeChanged").
(function () {
  "use strict";
  var STORAGE_KEY = "__telegram__initParams";

  function parseQuery(text) {
    var result = {};
    if (!text) return result;
    text.split("&").forEach(function (part) {
      if (!part) return;
      var at = part.indexOf("=");
      var name = at < 0 ? part : part.slice(0, at);
      var value = at < 0 ? "" : part.slice(at + 1);
      try {
        name = decodeURIComponent(name.replace(/\+/g, "%20"));
        value = decodeURIComponent(value.replace(/\+/g, "%20"));
      } catch (e) {
        return;
      }
      result[name] = value;
    });
    return result;
  }

  var hash = location.hash.replace(/^#/, "");
  var params = parseQuery(hash);
  try {
    if (params.tgWebAppData !== undefined || params.tgWebAppVersion !== undefined) {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(params));
    } else {
      var stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || "null");
      if (stored) params = stored;
    }
  } catch (e) {
    /* no sessionStorage (a sandboxed frame): the hash alone */
  }
  var query = parseQuery(location.search.replace(/^\?/, ""));

  var initData = params.tgWebAppData || "";
  var initDataUnsafe = {};
  var fields = parseQuery(initData);
  Object.keys(fields).forEach(function (key) {
    var value = fields[key];
    if (key === "user" || key === "receiver" || key === "chat") {
      try {
        value = JSON.parse(value);
      } catch (e) {
        return;
      }
    } else if (key === "auth_date" || key === "can_send_after") {
      value = Number(value);
    }
    initDataUnsafe[key] = value;
  });
  if (initDataUnsafe.start_param === undefined && query.tgWebAppStartParam !== undefined) {
    initDataUnsafe.start_param = query.tgWebAppStartParam;
  }

  var themeParams = {};
  try {
    themeParams = JSON.parse(params.tgWebAppThemeParams || "{}") || {};
  } catch (e) {
    themeParams = {};
  }

  var handlers = {};
  function fire(name) {
    var args = Array.prototype.slice.call(arguments, 1);
    (handlers[name] || []).slice().forEach(function (callback) {
      try {
        callback.apply(WebApp, args);
      } catch (e) {
        setTimeout(function () {
          throw e;
        }, 0);
      }
    });
  }

  function isColorDark(color) {
    var match = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color || "");
    if (!match) return false;
    var r = parseInt(match[1], 16);
    var g = parseInt(match[2], 16);
    var b = parseInt(match[3], 16);
    return Math.sqrt(0.299 * r * r + 0.587 * g * g + 0.114 * b * b) < 120;
  }

  function setCss(name, value) {
    var root = document.documentElement;
    if (root) root.style.setProperty(name, value);
  }

  var viewportHeight = window.innerHeight;
  var isExpanded = true;

  function applyTheme() {
    Object.keys(themeParams).forEach(function (key) {
      setCss("--tg-theme-" + key.replace(/_/g, "-"), themeParams[key]);
    });
    WebApp.colorScheme = isColorDark(themeParams.bg_color) ? "dark" : "light";
    setCss("--tg-color-scheme", WebApp.colorScheme);
  }

  function applyViewport() {
    WebApp.viewportHeight = viewportHeight;
    WebApp.viewportStableHeight = viewportHeight;
    WebApp.isExpanded = isExpanded;
    setCss("--tg-viewport-height", viewportHeight + "px");
    setCss("--tg-viewport-stable-height", viewportHeight + "px");
  }

  function record(name, value) {
    if (!window[name]) window[name] = [];
    window[name].push(value);
  }

  function button(kind) {
    var clicks = [];
    var self = {
      text: kind === "main" ? "Continue" : "",
      color: themeParams.button_color || "#3390ec",
      textColor: themeParams.button_text_color || "#ffffff",
      isVisible: false,
      isActive: true,
      isProgressVisible: false,
      show: function () { self.isVisible = true; return self; },
      hide: function () { self.isVisible = false; return self; },
      enable: function () { self.isActive = true; return self; },
      disable: function () { self.isActive = false; return self; },
      showProgress: function () { self.isProgressVisible = true; return self; },
      hideProgress: function () { self.isProgressVisible = false; return self; },
      setText: function (text) { self.text = String(text); return self; },
      setParams: function (options) {
        options = options || {};
        if (options.text !== undefined) self.text = String(options.text);
        if (options.color !== undefined) self.color = options.color;
        if (options.text_color !== undefined) self.textColor = options.text_color;
        if (options.is_visible !== undefined) self.isVisible = !!options.is_visible;
        if (options.is_active !== undefined) self.isActive = !!options.is_active;
        return self;
      },
      onClick: function (callback) { clicks.push(callback); return self; },
      offClick: function (callback) {
        var at = clicks.indexOf(callback);
        if (at >= 0) clicks.splice(at, 1);
        return self;
      },
      // Test hook: the person presses the button in the client.
      __click: function () {
        clicks.slice().forEach(function (callback) { callback(); });
        fire(kind === "main" ? "mainButtonClicked" : "backButtonClicked");
      },
    };
    return self;
  }

  var WebApp = {
    initData: initData,
    initDataUnsafe: initDataUnsafe,
    version: params.tgWebAppVersion || "6.0",
    platform: params.tgWebAppPlatform || "unknown",
    themeParams: themeParams,
    colorScheme: "light",
    isExpanded: isExpanded,
    viewportHeight: viewportHeight,
    viewportStableHeight: viewportHeight,
    headerColor: themeParams.header_bg_color || themeParams.bg_color || "#ffffff",
    backgroundColor: themeParams.bg_color || "#ffffff",
    isClosingConfirmationEnabled: false,
    isVersionAtLeast: function (wanted) {
      var have = String(WebApp.version).split(".");
      var want = String(wanted).split(".");
      for (var i = 0; i < Math.max(have.length, want.length); i++) {
        var a = parseInt(have[i] || "0", 10);
        var b = parseInt(want[i] || "0", 10);
        if (a !== b) return a > b;
      }
      return true;
    },
    ready: function () {
      window.__tgReady = true;
    },
    expand: function () {
      isExpanded = true;
      applyViewport();
      fire("viewportChanged", { isStateStable: true });
    },
    close: function () {
      window.__tgClosed = true;
    },
    onEvent: function (name, callback) {
      (handlers[name] = handlers[name] || []).push(callback);
    },
    offEvent: function (name, callback) {
      var list = handlers[name] || [];
      var at = list.indexOf(callback);
      if (at >= 0) list.splice(at, 1);
    },
    setHeaderColor: function (color) {
      WebApp.headerColor = color;
    },
    setBackgroundColor: function (color) {
      WebApp.backgroundColor = color;
    },
    enableClosingConfirmation: function () {
      WebApp.isClosingConfirmationEnabled = true;
    },
    disableClosingConfirmation: function () {
      WebApp.isClosingConfirmationEnabled = false;
    },
    openLink: function (url) {
      record("__tgLinks", String(url));
    },
    openTelegramLink: function (url) {
      record("__tgLinks", String(url));
    },
    showAlert: function (message, callback) {
      record("__tgAlerts", String(message));
      if (callback) setTimeout(callback, 0);
    },
    showConfirm: function (message, callback) {
      record("__tgAlerts", String(message));
      if (callback) setTimeout(function () { callback(true); }, 0);
    },
    sendData: function (data) {
      record("__tgSentData", String(data));
    },
    HapticFeedback: {
      impactOccurred: function (style) {
        record("__tgHaptics", "impact:" + style);
        return WebApp.HapticFeedback;
      },
      notificationOccurred: function (type) {
        record("__tgHaptics", "notification:" + type);
        return WebApp.HapticFeedback;
      },
      selectionChanged: function () {
        record("__tgHaptics", "selection");
        return WebApp.HapticFeedback;
      },
    },
    MainButton: null,
    BackButton: null,
    // Test hook: the person switches the client's theme.
    __setTheme: function (next) {
      themeParams = {};
      Object.keys(next || {}).forEach(function (key) {
        themeParams[key] = next[key];
      });
      WebApp.themeParams = themeParams;
      applyTheme();
      fire("themeChanged");
    },
  };
  WebApp.MainButton = button("main");
  WebApp.BackButton = button("back");

  window.__tgHaptics = window.__tgHaptics || [];
  applyTheme();
  applyViewport();
  window.addEventListener("resize", function () {
    viewportHeight = window.innerHeight;
    applyViewport();
    fire("viewportChanged", { isStateStable: true });
  });

  window.Telegram = window.Telegram || {};
  window.Telegram.WebApp = WebApp;
})();
