"""Makes moto's per-request routing stop re-reading its own package and re-listing a class's methods.

moto 5.2.1, on every request:
  * DomainDispatcherApplication.get_backend_for_host asks `host in backends.list_of_moto_modules()`, and that lists
    moto's package directory (os.listdir, then os.path.isdir per entry) to find its service names;
  * BaseResponse.call_action builds method_names_from_class(self.__class__) -- inspect.getmembers over the response
    class and all it inherits -- to ask whether the action is one of its methods.
Profiled during a local night (py-spy on the moto process, 2,000 authorisations), the two were about 5 % and 2 % of
moto's busy time.

Here both answers are computed once and kept: moto's package directory does not change while the launcher runs, and
the functions a response class has are fixed once the launcher's patches are installed (they replace functions, they
add none). list_of_moto_modules gives the same names in the same order; method_names_from_class the same list per
class (a copy, so no caller can change the kept one). Nothing else changes: the same host matching, the same
dispatch to the same method.

install() checks that moto still calls the two where this patch replaces them and stops the launcher (SystemExit)
with a clear message if not. RECONCILER_DISPATCH_PATCH=off disables the patch (the test's reference engine).
"""
import inspect
import os
import sys


def install():
    if os.environ.get("RECONCILER_DISPATCH_PATCH", "on").strip().lower() == "off":
        print("dispatch_patch: disabled (RECONCILER_DISPATCH_PATCH=off): moto lists its modules and a class's methods "
              "per request", file=sys.stderr, flush=True)
        return
    from moto import backends
    from moto.core import responses, utils
    from moto.moto_server import werkzeug_app

    if getattr(backends.list_of_moto_modules, "_reconciler_patched", False):
        return
    if "backends.list_of_moto_modules()" not in inspect.getsource(werkzeug_app.DomainDispatcherApplication.get_backend_for_host):
        raise SystemExit("moto changed: get_backend_for_host no longer calls backends.list_of_moto_modules(); "
                         "review dispatch_patch.py")
    if responses.method_names_from_class is not utils.method_names_from_class \
            or "method_names_from_class(self.__class__)" not in inspect.getsource(responses.BaseResponse.call_action):
        raise SystemExit("moto changed: BaseResponse.call_action no longer calls moto.core.utils.method_names_from_class; "
                         "review dispatch_patch.py")

    modules = tuple(backends.list_of_moto_modules())

    def list_of_moto_modules():
        return iter(modules)

    original_method_names = utils.method_names_from_class
    names_by_class = {}

    def method_names_from_class(clazz):
        names = names_by_class.get(clazz)
        if names is None:
            names = names_by_class[clazz] = tuple(original_method_names(clazz))
        return list(names)

    list_of_moto_modules._reconciler_patched = True
    backends.list_of_moto_modules = list_of_moto_modules
    responses.method_names_from_class = method_names_from_class
    print(f"dispatch_patch: moto's {len(modules)} module names and each response class's methods listed once",
          file=sys.stderr, flush=True)
