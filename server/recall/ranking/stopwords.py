"""Words that carry no meaning in a recall query, and words that only frame one, per language.

Data only, written for this project (folded as words.fold_for_ranking folds them: lowercase,
accents off).

- **Stop words** (articles, pronouns, auxiliaries, question words, prepositions) are dropped
  from a query: "what did we decide about the build system" asks about *build system*.
- **Framing words** are how people ask about a decision ("decide", "chose", "use", "policy",
  "tool"): a record that holds one ranks a little higher, but a record without it is not a
  weaker answer — a note saying "We build with Bazel" answers "what did we decide about the
  build tool" in full.
- **General words** are the common verbs, auxiliaries and all-purpose words a question is
  phrased with ("how do I *keep* my notes…", "*dürfen* wir … *machen*", "o que *fazemos*…"):
  ranked as any topic word, but a record without one is not a weaker answer — the mark
  `weak_match` asks for every other meaningful word, held together.  Exact folded forms, not
  stems: 'set' is general, 'settings' is not.
"""

from __future__ import annotations

STOP_WORDS: dict[str, str] = {
    "english": """
        a about above after again against all also am an and any are as at be because been
        before being below between both but by can could did do does doing done down during
        each either else etc ever every few for from further get gets got had has have having
        he her here hers herself him himself his how i if in into is it its itself just let
        lets me more most much must my myself neither no nor not now of off on once one only
        or other ought our ours ourselves out over own per please really same shall she
        should so some such than that thats the their theirs them themselves then there these
        they this those through thus to too under until up upon us very vs versus was we were
        what whats when where whether which while who whom whose why will with within without
        would yet you your yours yourself yourselves s t d ll m re ve don didn doesn isn
        aren wasn weren hasn haven hadn won wouldn shouldn couldn can cannot cant
    """,
    "german": """
        aber als also am an auch auf aus bei beim bin bis bist da damit dann das dass dein
        deine dem den denn der des dessen die dies diese diesem diesen dieser dieses doch dort
        du durch ein eine einem einen einer eines er es etwas euch euer eure fur gegen gewesen
        hab habe haben hat hatte hatten hier hin ich ihm ihn ihnen ihr ihre im in ins ist ja
        jede jedem jeden jeder jedes jetzt kann kein keine konnen konnte man mein meine mich
        mir mit muss mussen nach nicht noch nun nur ob oder ohne sehr sein seine seit sich sie
        sind so soll sollen sollte sondern uber um und uns unser unsere unter vom von vor
        wann war waren warum was weil welche welchem welchen welcher welches wenn wer werden
        wie wieso wieviel wir wird wo woher wohin wurde wurden zu zum zur zwischen weshalb
        gibt
    """,
    "french": """
        a ai au aux avec avez avions avons c ce ceci cela celle celles celui ces cet cette
        comme comment d dans de des donc dont du elle elles en est et etaient etait ete etes
        etre eu eux fait faire il ils j je l la le les leur leurs lui m ma mais me meme mes
        moi mon n ne ni nos notre nous on ont ou par pas pour pourquoi qu quand que quel quelle
        quelles quels qui quoi s sa sans se ses si son sont sur t ta te tes toi ton tu un une
        vos votre vous y quoi lequel laquelle lesquels avait avaient sera seront
    """,
    "spanish": """
        a al algo como con contra cual cuales cuando de del desde donde el ella ellas ellos
        en entre era eran es esa esas ese eso esos esta estaba estamos estan estar estas este
        esto estos fue fueron ha habia han has hay he hemos la las le les lo los mas me mi mis
        muy nos nosotras nosotros nuestra nuestras nuestro nuestros o os para pero por porque
        que quien quienes se sea ser si sin sobre son su sus te tiene tienen tu tus un una
        unas uno unos usted ustedes vosotros y ya yo
    """,
    "italian": """
        a ad al alla alle allo agli ai anche avete abbiamo ha hanno ho che chi ci come con
        cosa cui da dal dalla dei del della delle dello degli di dove e ed era erano essere
        gli ha i il in io la le lei li lo loro lui ma mi mia mie miei mio ne nei nel nella
        nelle noi non nostra nostre nostri nostro o per perche piu quale quali quando quanto
        quella quelle quello questa queste questi questo se si sia siamo sono su sua sue suo
        suoi sul sulla ti tra tu tua tuo un una uno vi voi
    """,
    "portuguese": """
        a ao aos as com como da das de dela dele deles do dos e ela elas ele eles em entre
        era eram essa esse esta estao este estamos eu foi foram ha isso isto ja la lhe mais
        mas me meu minha muito na nas nem no nos nossa nossas nosso nossos num numa o os ou
        para pela pelas pelo pelos por porque qual quais quando que quem se sem ser seu sua
        sao tem temos ter um uma voce voces
    """,
    "dutch": """
        aan al alles als bij daar dan dat de der deze die dit door een en er had heb hebben
        heeft het hier hij hoe hun ik in is je kan kon maar me meer men met mij mijn moet na
        naar niet niets nog nu of om omdat onder ons onze ook op over reeds te tegen toch toen
        tot u uit uw van veel voor waarom wanneer wat we wel werd wie wij worden wordt zal ze
        zei zelf zich zij zijn zo zonder zou
    """,
}

# One line per meaning: the words on a line stand for one another ("decide" finds "decision").
FRAMING_WORDS: dict[str, str] = {
    "english": """
        decide decided decides deciding decision decisions
        choose chose chosen choosing choice choices
        pick picked picking
        agree agreed agreement agreements
        settle settled
        use used uses using usage
        prefer preferred preference
        opt opted option
        go going went
        approach approaches
        current currently anymore still
        team thing things way
        policy policies
        rule rules
        convention conventions
        standard standards guideline guidelines
        practice practices
        process processes procedure procedures workflow workflows
        strategy strategies
        setup
        tool tools tooling
        provider providers vendor vendors
        happen happens happened
        need needs needed
        handle handles handled handling
    """,
    "german": """
        entscheiden entschieden entscheidung entscheidungen
        wahlen gewahlt wahl
        nutzen genutzt nutzt verwenden verwendet benutzen benutzt einsetzen eingesetzt
        festgelegt vereinbart vereinbarung
        aktuell derzeit
    """,
    "french": """
        decider decide decidee decision decisions
        choisir choisi choisie choix
        utiliser utilise utilisee utilisons
        retenu adopte
        actuellement
    """,
    "spanish": """
        decidir decidimos decidido decidio decision decisiones
        elegir elegimos elegido eleccion
        usar usamos usado utilizar utilizamos utilizado
        actualmente
    """,
    "italian": """
        decidere deciso decisione decisioni
        scegliere scelto scelta
        usare usiamo usato utilizzare utilizziamo
        attualmente
    """,
    "portuguese": """
        decidir decidimos decidido decisao decisoes
        escolher escolhemos escolhido escolha
        usar usamos usado utilizar utilizamos
        atualmente
    """,
    "dutch": """
        besluiten besloten besluit beslissing
        kiezen gekozen keuze
        gebruiken gebruikt
        momenteel
    """,
}

# Exact folded forms (words.fold_for_ranking): no stemming, so that a topic word sharing a stem
# with one of these ('settings', 'working copy') still counts.
GENERAL_WORDS: dict[str, str] = {
    "english": """
        keep keeps kept keeping make makes made making put puts putting get gets got getting
        go goes gone take takes took taken taking give gives gave given giving bring brings
        brought move moves moved moving turn turns turned turning work works worked working
        want wants wanted need needs needed show shows showed shown showing see sees saw seen
        seeing find finds found finding say says said tell tells told try tries tried trying
        let come comes came look looks looked looking seem seems know knows knew known think
        mean means meant call called like inside back whole another several many something
        anything everything again even later long new old same different enough right able
        possible best better good bad lot lots kind sort part instead apply applies applied
        write writes wrote written writing happens happening stay stays stop stops
        often always usually sometimes far
        leave leaves leaving left stored storing ask asks asked help helps helped begin
        begins began follow follows followed include includes included including provide
        provides provided deal deals dealt treat treats treated
    """,
    "german": """
        machen macht machst gemacht mache geht gehen gegangen kommt kommen kam gekommen nehmen
        nimmt genommen geben gegeben sehen sieht gesehen finden findet gefunden sagen sagt
        gesagt lassen lasst gelassen bleiben bleibt stehen steht bringen bringt gebracht zeigen
        zeigt gezeigt halten halt durfen darf darfst mochten mochte mochtest will willst wollen
        brauchen braucht gebraucht tun tut getan oft immer wieder genau neu neue neuen alt alte
    """,
    "french": """
        faire fais fait faisons faites font peut peux pouvons pouvez peuvent pourrait dois
        doit devons devez doivent faut aller va vais allons allez vont mettre mets met mis
        prendre prend pris donner donne voir vois voit trouver trouve dire dit garder garde
        avoir souvent toujours nouveau nouvelle
    """,
    "spanish": """
        hacer hago hace hacemos hacen hecho puedo puede podemos pueden podria debo debe
        debemos deben tengo tenemos tener ir voy va vamos van poner pongo pone puesto tomar
        dar da ver veo ve encontrar decir dice mantener necesito necesita necesitamos
        siempre nuevo nueva
    """,
    "portuguese": """
        fazer faz fazemos fazem feito faco posso pode podemos podem poderia devo deve devemos
        devem tenho tinha temos ir vou vai vamos vao por ponho poe tomar dar da ver vejo ve
        encontrar dizer diz manter preciso precisa precisamos precisam sempre novo nova
        estar fica ficar
    """,
    "italian": """
        fare faccio fa facciamo fanno fatto posso puo possiamo possono devo deve dobbiamo
        devono andare vado va andiamo mettere prendere dare vedere trovare dire tenere
        sempre nuovo nuova
    """,
    "dutch": """
        doen doet gedaan maken maakt gemaakt kunnen kunt moeten moet mogen mag willen wil
        gaan gaat gegaan komen komt zien ziet vinden vindt zeggen zegt houden houdt laten
        altijd nieuw nieuwe
    """,
}
