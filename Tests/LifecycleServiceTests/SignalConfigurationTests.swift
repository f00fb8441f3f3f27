import Foundation
import LifecycleCore
import SharedSignals
import Testing

@testable import LifecycleEngine

/// `apps[].signals`: the providers parse with their defaults, and every mistake is one line naming the field.
@Suite("Configuration of Shared Signals providers")
struct SignalConfigurationTests {
    func parse(_ signals: [JSONValue], clientIDs: JSONValue? = ["com.example.shop"]) throws(ConfigurationError)
        -> ServiceConfiguration
    {
        var app: JSONObject = ["id": "shop", "signals": .array(signals)]
        if let clientIDs { app["clientIds"] = clientIDs }
        return try ServiceConfiguration.parse(
            ["apps": [.object(app)]], file: "lifecycle.json", baseDirectory: "/etc/lifecycle")
    }

    @Test("google-risc defaults to Google's issuer, key set, id and a path under /signals/<app>/")
    func googleDefaults() throws {
        let provider = try #require(
            try parse([["provider": "google-risc", "audience": ["1-x.apps.googleusercontent.com"]]]).apps[0].signals
                .first)
        #expect(provider.profile == .googleRISC)
        #expect(provider.id == "google")
        #expect(provider.issuer == "https://accounts.google.com/")
        #expect(provider.jwks == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(provider.path == "/signals/shop/google")
        #expect(provider.authorizationSecretFile == nil)
    }

    @Test("recordSubject defaults to iss_sub under the provider's issuer; another format takes no issuer")
    func recordSubject() throws {
        let configuration = try parse([
            ["provider": "google-risc", "audience": ["a"]],
            [
                "provider": "ssf", "id": "okta", "issuer": "https://idp.example/", "jwks": "k.json", "audience": ["a"],
                "recordSubject": ["format": "email"],
            ],
            [
                "provider": "ssf", "id": "kc", "issuer": "https://idp.example/", "jwks": "k.json", "audience": ["a"],
                "recordSubject": ["issuer": "https://accounts.example/"],
            ],
        ])
        let providers = configuration.apps[0].signals
        #expect(providers[0].recordSubject == .issSub(issuer: "https://accounts.google.com/"))
        #expect(providers[1].recordSubject == ProviderRecordSubject(format: "email", issuer: nil))
        #expect(providers[2].recordSubject == .issSub(issuer: "https://accounts.example/"))
        let keys = configuration.apps[0].recordKeys
        #expect(
            keys.accountKey(provider: "google", sub: "7375626A656374")
                == "google:iss_sub:https%3A//accounts.google.com/:7375626A656374")
        #expect(keys.accountKey(provider: "okta", sub: "User@Example.com") == "okta:email:user@example.com")
        #expect(keys.accountKey(provider: "apple", sub: "001.a") == "001.a")
        #expect(keys.accountKey(provider: nil, sub: "001.a") == "001.a")
        #expect(keys.accountKey(provider: "auth0", sub: "x") == nil)
    }

    @Test("an app with providers only may leave clientIds out; a relative secret or key file is resolved")
    func signalsOnly() throws {
        let configuration = try parse(
            [
                [
                    "provider": "ssf", "id": "okta", "issuer": "https://idp.example/", "jwks": "keys/okta.json",
                    "audience": ["https://rp.example/"], "authorization": ["secretFile": "secrets/okta"],
                ]
            ], clientIDs: nil)
        let provider = try #require(configuration.apps[0].signals.first)
        #expect(configuration.apps[0].clientIDs.isEmpty)
        #expect(provider.jwks == "/etc/lifecycle/keys/okta.json")
        #expect(provider.authorizationSecretFile == "/etc/lifecycle/secrets/okta")
        #expect(configuration.signalProvider(atPath: "/signals/shop/okta")?.provider.id == "okta")
    }

    @Test(
        "each mistake fails with one line naming the field",
        arguments: [
            ([["provider": "saml", "audience": ["a"]]], "apps[0].signals[0].provider: unknown provider saml"),
            (
                [["provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json"]],
                "apps[0].signals[0].audience: missing"
            ),
            (
                [["provider": "ssf", "id": "x", "jwks": "k.json", "audience": ["a"]]],
                "apps[0].signals[0].issuer: missing"
            ),
            (
                [["provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "", "audience": ["a"]]],
                "apps[0].signals[0].jwks: expected a non-empty string"
            ),
            (
                [["provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "http://i/keys", "audience": ["a"]]],
                "apps[0].signals[0].jwks: plain http is refused"
            ),
            (
                [["provider": "google-risc", "id": "apple", "audience": ["a"]]],
                "apps[0].signals[0].id: missing or invalid"
            ),
            (
                [["provider": "google-risc", "audience": ["a"]], ["provider": "google-risc", "audience": ["b"]]],
                "apps[0].signals[1].id: duplicate provider id google"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "path": "/apple/notifications"]],
                "apps[shop].signals[0].path: /apple/notifications is already served"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "secret": "x"]],
                "apps[0].signals[0].secret: unknown key"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "recordSubject": ["format": "iss-sub"]]],
                "apps[0].signals[0].recordSubject.format: unknown subject format iss-sub"
            ),
            (
                [
                    [
                        "provider": "google-risc", "audience": ["a"],
                        "recordSubject": ["format": "opaque", "issuer": "https://i/"],
                    ]
                ],
                "apps[0].signals[0].recordSubject.issuer: applies to format iss_sub only"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "recordSubject": ["column": "google_sub"]]],
                "apps[0].signals[0].recordSubject.column: unknown key"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "stream": ["delivery": "poll"]]],
                "apps[0].signals[0].stream.delivery: Google's RISC API delivers by push only"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": ["delivery": "poll", "pollURL": "http://i/poll"],
                    ]
                ],
                "apps[0].signals[0].stream.pollURL: http://i/poll is not an https:// URL without query"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": ["delivery": "poll", "maxEvents": 0],
                    ]
                ],
                "apps[0].signals[0].stream.maxEvents: 0 is out of range 1...1000"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": ["maxEvents": 10],
                    ]
                ],
                "apps[0].signals[0].stream.maxEvents: applies to poll delivery only"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": ["delivery": "poll", "endpointURL": "https://rp.example/s"],
                    ]
                ],
                "apps[0].signals[0].stream.endpointURL: poll delivery has no push endpoint"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": [
                            "delivery": "poll", "pollIntervalMilliseconds": 5000, "pollBackoffMaxMilliseconds": 1000,
                        ],
                    ]
                ],
                "apps[0].signals[0].stream.pollBackoffMaxMilliseconds: is below pollIntervalMilliseconds"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": ["delivery": "fax"],
                    ]
                ],
                "apps[0].signals[0].stream.delivery: unknown delivery fax"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "stream": ["tokenFile": "t"]]],
                "apps[0].signals[0].stream.tokenFile: google-risc is authorised by a service account"
            ),
            (
                [
                    [
                        "provider": "ssf", "id": "x", "issuer": "https://i/", "jwks": "k.json", "audience": ["a"],
                        "stream": ["serviceAccountFile": "sa.json"],
                    ]
                ],
                "apps[0].signals[0].stream.serviceAccountFile: only google-risc is authorised by a service account"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "stream": ["endpointURL": "http://rp.example/s"]]],
                "apps[0].signals[0].stream.endpointURL: http://rp.example/s is not an https:// URL"
            ),
            (
                [["provider": "google-risc", "audience": ["a"], "stream": ["discovery": "https://g/x?y=1"]]],
                "apps[0].signals[0].stream.discovery: https://g/x?y=1 is not an https:// URL without query"
            ),
        ] as [([JSONValue], String)])
    func mistakes(signals: [JSONValue], expected: String) {
        do {
            _ = try parse(signals)
            Issue.record("accepted \(signals)")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("stream: discovery defaults to SSF's well-known URL of the issuer, Google's for google-risc; files resolved")
    func streamDefaults() throws {
        let providers = try parse([
            [
                "provider": "ssf", "id": "okta", "issuer": "https://idp.example/tenant/", "jwks": "k.json",
                "audience": ["a"],
                "stream": [
                    "tokenFile": "secrets/okta-management", "endpointURL": "https://rp.example/signals/shop/okta",
                ],
            ],
            ["provider": "google-risc", "audience": ["b"], "stream": ["serviceAccountFile": "secrets/sa.json"]],
        ]).apps[0].signals
        #expect(providers[0].stream.discovery == "https://idp.example/.well-known/ssf-configuration/tenant")
        #expect(providers[0].stream.tokenFile == "/etc/lifecycle/secrets/okta-management")
        #expect(providers[0].stream.delivery == .push)
        #expect(providers[1].stream.discovery == "https://accounts.google.com/.well-known/risc-configuration")
        #expect(providers[1].stream.googleAPI == "https://risc.googleapis.com")
        #expect(providers[1].stream.serviceAccountFile == "/etc/lifecycle/secrets/sa.json")
    }

    @Test("poll delivery: the poll endpoint, maxEvents and the poll timings, with their defaults")
    func pollSettings() throws {
        let providers = try parse([
            [
                "provider": "ssf", "id": "okta", "issuer": "https://idp.example/", "jwks": "k.json",
                "audience": ["a"],
                "stream": [
                    "delivery": "poll", "pollURL": "https://idp.example/ssf/poll", "maxEvents": 25,
                    "tokenFile": "secrets/okta-management",
                ],
            ],
            [
                "provider": "ssf", "id": "kc", "issuer": "https://kc.example/", "jwks": "k.json", "audience": ["a"],
                "stream": ["delivery": "poll"],
            ],
        ]).apps[0].signals
        #expect(providers[0].stream.delivery == .poll)
        #expect(providers[0].stream.pollURL == "https://idp.example/ssf/poll")
        #expect(providers[0].stream.maxEvents == 25)
        #expect(providers[1].stream.pollURL == nil, "learnt from the stream's delivery.endpoint_url")
        #expect(providers[1].stream.maxEvents == 100)
        #expect(providers[1].stream.pollIntervalMilliseconds == 10_000)
        #expect(providers[1].stream.pollBackoffMaxMilliseconds == 300_000)
        #expect(providers[1].stream.pollMaxResponseBytes == 4 << 20)
    }

    @Test("an app with neither clientIds nor signals is refused")
    func neither() {
        #expect(throws: ConfigurationError.self) { try parse([], clientIDs: nil) }
    }
}
