from django.core.management.commands.makemessages import Command as MakeMessagesCommand


class Command(MakeMessagesCommand):
    # The engine says its replies with conversations.language.say(language, message, **values) and
    # say_in_context(context, language, message, **values).
    xgettext_options = [*MakeMessagesCommand.xgettext_options, "--keyword=say:2", "--keyword=say_in_context:1c,3"]
