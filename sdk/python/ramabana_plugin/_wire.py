"""The contract's messages and gRPC methods, built at run time from the
descriptors _contract.py carries: no protoc, no generated stubs.

The messages live in a private descriptor pool, so a plugin that also
imports other generated code (grpc's own health stubs, say) cannot clash
with them. Only APIs present from protobuf 3.20 to 6.x are used.

This module imports protobuf; the rest of the kit imports it only when it
serves or tests, so that a plugin run by hand says what is wrong before it
needs grpcio or protobuf.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

from . import _contract

_pool = descriptor_pool.DescriptorPool()
for _text in _contract.FILES:
    # AddSerializedFile, as generated code registers its files: in every
    # protobuf from 3.x to 6.x.
    _pool.AddSerializedFile(text_format.Parse(_text, descriptor_pb2.FileDescriptorProto()).SerializeToString())


def message_class(full_name):
    """The message class of the contract's message full_name
    (e.g. "ramabana.plugin.v1.CallRequest")."""
    desc = _pool.FindMessageTypeByName(full_name)
    get = getattr(message_factory, "GetMessageClass", None)
    if get is not None:  # protobuf >= 4.22 (MessageFactory.GetPrototype is gone from 6.30)
        return get(desc)
    return message_factory.MessageFactory(_pool).GetPrototype(desc)


def enum_value(enum_full_name, value_name):
    """The number of value_name in the contract's enum enum_full_name."""
    return _pool.FindEnumTypeByName(enum_full_name).values_by_name[value_name].number


_P = "ramabana.plugin.v1."
HostContext = message_class(_P + "HostContext")
DescribeRequest = message_class(_P + "DescribeRequest")
DescribeResponse = message_class(_P + "DescribeResponse")
Group = message_class(_P + "Group")
ToolSpec = message_class(_P + "ToolSpec")
Annotations = message_class(_P + "Annotations")
CallRequest = message_class(_P + "CallRequest")
CallResponse = message_class(_P + "CallResponse")
Progress = message_class(_P + "Progress")
Log = message_class(_P + "Log")
Result = message_class(_P + "Result")
Content = message_class(_P + "Content")
Image = message_class(_P + "Image")
EmbeddedResource = message_class(_P + "EmbeddedResource")
FileChange = message_class(_P + "FileChange")
HealthCheckRequest = message_class("grpc.health.v1.HealthCheckRequest")
HealthCheckResponse = message_class("grpc.health.v1.HealthCheckResponse")
HealthListRequest = message_class("grpc.health.v1.HealthListRequest")
HealthListResponse = message_class("grpc.health.v1.HealthListResponse")
Empty = message_class("plugin.Empty")

SERVING = enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus", "SERVING")
SERVICE_UNKNOWN = enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus", "SERVICE_UNKNOWN")

# Service names and their methods: (name, request class, response class,
# server-streaming), as the descriptors declare them.
TOOL_GROUP_SERVICE = "ramabana.plugin.v1.ToolGroupService"
HEALTH_SERVICE = "grpc.health.v1.Health"
CONTROLLER_SERVICE = "plugin.GRPCController"


def methods(service_full_name):
    """{method name: (request class, response class, server_streaming)} of
    a service of the contract."""
    svc = _pool.FindServiceByName(service_full_name)
    return {m.name: (message_class(m.input_type.full_name), message_class(m.output_type.full_name),
                     m.server_streaming) for m in svc.methods}


def path(service, method):
    """The gRPC method path, "/package.Service/Method"."""
    return "/%s/%s" % (service, method)


# Enum names of the proto by the kit's plain strings.
KINDS = {"read": "TOOL_KIND_READ", "write": "TOOL_KIND_WRITE", "act": "TOOL_KIND_ACT"}
TASKS = {"completion": "TOOL_TASK_COMPLETION", "context": "TOOL_TASK_CONTEXT",
         "evaluation": "TOOL_TASK_EVALUATION", "post_tool": "TOOL_TASK_POST_TOOL",
         "skill": "TOOL_TASK_SKILL", "none": "TOOL_TASK_NONE"}
GROUP_MODES = {"default": "GROUP_MODE_DEFAULT", "opt-in": "GROUP_MODE_OPT_IN", "legacy": "GROUP_MODE_LEGACY"}
SKILL_MODES = {"always-on": "SKILL_MODE_ALWAYS_ON", "auto": "SKILL_MODE_AUTO"}
LOG_LEVELS = {"debug": "LOG_LEVEL_DEBUG", "info": "LOG_LEVEL_INFO", "warning": "LOG_LEVEL_WARNING",
              "error": "LOG_LEVEL_ERROR"}


def _num(enum, table, value):
    return enum_value(_P + enum, table[value])


def _name(enum, table, number, unspecified):
    """The kit's string for an enum number: unspecified for 0, the number
    itself (as a string) for one the kit does not know."""
    if number == 0:
        return unspecified
    name = _pool.FindEnumTypeByName(_P + enum).values_by_number.get(number)
    for key, proto_name in table.items():
        if name is not None and proto_name == name.name:
            return key
    return str(number)


def kind_number(kind):
    """The ToolKind number of "read", "write" or "act"."""
    return _num("ToolKind", KINDS, kind)


def task_number(task):
    """The ToolTask number of a task string ("completion", ...)."""
    return _num("ToolTask", TASKS, task)


def group_mode_number(mode):
    """The GroupMode number of "default", "opt-in" or "legacy"."""
    return _num("GroupMode", GROUP_MODES, mode)


def skill_mode_number(mode):
    """The SkillMode number of "always-on" or "auto"."""
    return _num("SkillMode", SKILL_MODES, mode)


def log_level_number(level):
    """The LogLevel number of "debug", "info", "warning" or "error"."""
    return _num("LogLevel", LOG_LEVELS, level)


def kind_name(number):
    """"read", "write", "act", "" for unspecified, or the number."""
    return _name("ToolKind", KINDS, number, "")


def task_name(number):
    """The task string; "completion" for unspecified, as the host reads it."""
    return _name("ToolTask", TASKS, number, "completion")


def group_mode_name(number):
    """"default", "opt-in" or "legacy" ("default" for unspecified)."""
    return _name("GroupMode", GROUP_MODES, number, "default")


def skill_mode_name(number):
    """"always-on", "auto", or "" when unspecified."""
    return _name("SkillMode", SKILL_MODES, number, "")


def log_level_name(number):
    """"debug", "info", "warning" or "error" ("info" for unspecified)."""
    return _name("LogLevel", LOG_LEVELS, number, "info")
