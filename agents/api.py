"""REST endpoints of the engine: /api/v1/nlu/parse."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.intents.catalogue import catalogue_get
from agents.intents.recognize import recognize


class NluParseApi(APIView):
    class InputSerializer(serializers.Serializer):
        text = serializers.CharField(trim_whitespace=True, allow_blank=False)
        locale = serializers.ChoiceField(choices=["zh", "en"], required=False)

        def validate_text(self, value: str) -> str:
            if len(value) > settings.MAX_MESSAGE_CHARS:
                raise serializers.ValidationError(
                    f"Ensure this field has no more than {settings.MAX_MESSAGE_CHARS} characters."
                )
            return value

    class IntentSerializer(serializers.Serializer):
        name = serializers.CharField()
        confidence = serializers.FloatField()
        text = serializers.CharField()

    class OutputSerializer(serializers.Serializer):
        intents = serializers.ListField(child=serializers.DictField())
        entities = serializers.DictField()
        emotion_score = serializers.FloatField()
        level = serializers.CharField()
        flags = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        request=InputSerializer, responses=OutputSerializer, summary="Intents, entities and emotion of a text"
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        recognition = recognize(data.validated_data["text"], catalogue=catalogue_get())
        return Response(
            {
                "intents": recognition.as_json(),
                "entities": recognition.entities,
                "emotion_score": round(recognition.emotion_score, 3),
                "level": recognition.level,
                "flags": recognition.flags,
            }
        )
